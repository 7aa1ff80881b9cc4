#include "client/cpp/informerctl/args.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

absl::StatusOr<CommandLine> Parse(std::vector<std::string> args) {
  return ParseCommandLine(args);
}

// The usage error message for args; fails the test if they parse.
std::string ErrorOf(std::vector<std::string> args) {
  absl::StatusOr<CommandLine> line = ParseCommandLine(args);
  EXPECT_FALSE(line.ok());
  if (line.ok()) return "";
  EXPECT_EQ(line.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(line.status().message());
}

TEST(ParseCommandLineTest, GetWithAllFlagForms) {
  absl::StatusOr<CommandLine> line =
      Parse({"--server=dns:///informerd:7000", "get", "deploy", "web", "-nprod",
             "-o", "json", "--tls", "--field-selector=spec.x=y"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->command, Command::kGet);
  EXPECT_EQ(line->connection.address, "dns:///informerd:7000");
  EXPECT_TRUE(line->connection.tls);
  EXPECT_EQ(line->resource_arg, "deploy");
  EXPECT_EQ(line->resource.name.resource(), "deployments");
  EXPECT_EQ(line->resource.name.group(), "apps");
  EXPECT_EQ(line->name, "web");
  EXPECT_EQ(line->namespace_name, "prod");
  EXPECT_EQ(line->field_selector, "spec.x=y");
  EXPECT_EQ(line->output, OutputFormat::kJson);
}

TEST(ParseCommandLineTest, Defaults) {
  absl::StatusOr<CommandLine> get = Parse({"get", "pods"});
  ASSERT_TRUE(get.ok()) << get.status();
  EXPECT_EQ(get->connection.address, kDefaultServer);
  EXPECT_EQ(get->output, OutputFormat::kTable);
  EXPECT_FALSE(get->all_namespaces);
  EXPECT_EQ(get->namespace_name, "");

  absl::StatusOr<CommandLine> watch = Parse({"watch", "pods"});
  ASSERT_TRUE(watch.ok()) << watch.status();
  EXPECT_EQ(watch->output, OutputFormat::kTable);
}

TEST(ParseCommandLineTest, OutputFormats) {
  const std::pair<const char*, OutputFormat> kFormats[] = {
      {"table", OutputFormat::kTable}, {"wide", OutputFormat::kWide},
      {"json", OutputFormat::kJson},   {"yaml", OutputFormat::kYaml},
      {"name", OutputFormat::kName}};
  for (const auto& [spelling, format] : kFormats) {
    absl::StatusOr<CommandLine> get = Parse({"get", "pods", "-o", spelling});
    ASSERT_TRUE(get.ok()) << spelling << ": " << get.status();
    EXPECT_EQ(get->output, format) << spelling;
    if (format == OutputFormat::kName) continue;
    absl::StatusOr<CommandLine> watch = Parse({"watch", "pods", "-o", spelling});
    ASSERT_TRUE(watch.ok()) << spelling << ": " << watch.status();
    EXPECT_EQ(watch->output, format) << spelling;
  }
}

TEST(ParseCommandLineTest, WatchFlags) {
  absl::StatusOr<CommandLine> line =
      Parse({"watch", "/v1/configmaps", "-A", "-l", "app=web",
             "--resource-version", "42", "--initial-events", "--bookmarks",
             "--tls", "--ca-file", "ca.pem", "--token-file=/t"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->command, Command::kWatch);
  EXPECT_TRUE(line->all_namespaces);
  EXPECT_EQ(line->label_selector, "app=web");
  EXPECT_EQ(line->resource_version, "42");
  EXPECT_TRUE(line->initial_events);
  EXPECT_TRUE(line->bookmarks);
  EXPECT_TRUE(line->connection.tls);
  EXPECT_EQ(line->connection.ca_file, "ca.pem");
  EXPECT_EQ(line->connection.token_file, "/t");
}

// --token would show the token to every local user (ps); it is refused
// with the ways to give one instead.
TEST(ParseCommandLineTest, TokenOnTheCommandLineIsRefused) {
  EXPECT_EQ(ErrorOf({"health", "--tls", "--token", "t0k"}),
            "--token: a token on the command line is visible to other users "
            "(ps); use --token-file FILE or the environment variable "
            "INFORMERD_TOKEN");
  EXPECT_EQ(ErrorOf({"get", "pods", "--tls", "--token=t0k"}),
            ErrorOf({"health", "--tls", "--token", "t0k"}));
}

TEST(ParseCommandLineTest, TokenFromTheEnvironment) {
  absl::StatusOr<CommandLine> line =
      ParseCommandLine({"--tls", "resources"}, " t0k\n");
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->connection.token, "t0k");
  line = ParseCommandLine({"resources"}, "  ");
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->connection.token, "");
  line = ParseCommandLine({"--tls", "--token-file", "/t", "resources"}, "t0k");
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.status().message(),
            "INFORMERD_TOKEN, --token-file: give at most one");
}

// Like the client libraries: a token goes over plaintext only when asked,
// and loopback (the default server) is no exception.
TEST(ParseCommandLineTest, TokenWithoutTlsNeedsAllowTokenWithoutTls) {
  EXPECT_EQ(ErrorOf({"health", "--token-file", "/t"}),
            "--token-file: a token needs --tls (or --allow-token-without-tls)");
  absl::StatusOr<CommandLine> line = ParseCommandLine({"resources"}, "t0k");
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.status().message(),
            "INFORMERD_TOKEN: a token needs --tls (or --allow-token-without-tls)");
  line = Parse({"health", "--token-file", "/t", "--allow-token-without-tls"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_TRUE(line->connection.allow_token_without_tls);
  EXPECT_FALSE(line->connection.tls);
  line = Parse({"health", "--allow-token-without-tls"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(ErrorOf({"health", "--allow-token-without-tls=yes"}),
            "--allow-token-without-tls: takes no value");
}

TEST(ParseCommandLineTest, HelpNeedsNoCommandButFlagsMustBeKnown) {
  absl::StatusOr<CommandLine> line = Parse({"get", "--bogus-but-help", "-h"});
  EXPECT_FALSE(line.ok());  // an unknown flag is still an error
  line = Parse({"frob", "-h"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_TRUE(line->help);
}

TEST(ParseCommandLineTest, DoubleDashEndsFlags) {
  absl::StatusOr<CommandLine> line = Parse({"get", "pods", "--", "-weird"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->name, "-weird");
}

TEST(ParseCommandLineTest, UsageErrorsNameTheFlag) {
  EXPECT_EQ(ErrorOf({}), "missing COMMAND");
  EXPECT_EQ(ErrorOf({"frob"}),
            "unknown command \"frob\" (want resources, get, watch or health)");
  EXPECT_EQ(ErrorOf({"get"}), "get: missing RESOURCE");
  EXPECT_EQ(ErrorOf({"get", "pods", "a", "b"}),
            "get: unexpected argument \"b\"");
  EXPECT_EQ(ErrorOf({"watch", "pods", "a"}), "watch: unexpected argument \"a\"");
  EXPECT_EQ(ErrorOf({"resources", "pods"}),
            "resources: unexpected argument \"pods\"");
  EXPECT_EQ(ErrorOf({"get", "pods", "--nope"}), "unknown flag \"--nope\"");
  EXPECT_EQ(ErrorOf({"get", "pods", "-x"}), "unknown flag \"-x\"");
  EXPECT_EQ(ErrorOf({"get", "pods", "-n"}), "-n: needs a value");
  EXPECT_EQ(ErrorOf({"get", "pods", "-A=x"}), "-A: takes no value");
  EXPECT_EQ(ErrorOf({"get", "pods", "--tls=yes"}), "--tls: takes no value");
  EXPECT_EQ(ErrorOf({"get", "pods", "-o", "toml"}),
            "-o: unknown format \"toml\" for get (want table, wide, json, yaml or name)");
  EXPECT_EQ(ErrorOf({"watch", "pods", "--output=name"}),
            "--output: unknown format \"name\" for watch (want table, wide, json or yaml)");
  EXPECT_EQ(ErrorOf({"get", "pods", "--bookmarks"}),
            "--bookmarks: not a flag of get");
  EXPECT_EQ(ErrorOf({"health", "-n", "x"}), "-n: not a flag of health");
  EXPECT_EQ(ErrorOf({"get", "pods", "-A", "-n", "x"}),
            "-A, -n: give at most one");
  EXPECT_EQ(ErrorOf({"get", "pods", "x", "-A"}),
            "-A: cannot get an object by name in all namespaces");
  EXPECT_EQ(ErrorOf({"get", "pods", "x", "-l", "a=b"}),
            "-l: cannot be used together with NAME");
  EXPECT_EQ(ErrorOf({"health", "--ca-file", "a"}),
            "--ca-file, --cert-file, --key-file: require --tls");
  EXPECT_EQ(ErrorOf({"health", "--tls", "--cert-file", "a"}),
            "--cert-file, --key-file: give both or neither");
  EXPECT_EQ(ErrorOf({"health", "--server="}), "--server: empty");
  EXPECT_EQ(ErrorOf({"get", "a/b"}),
            "get: resource \"a/b\": want group/version/resource or "
            "/version/resource");
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
