// The informerctl command line: parsed by hand because its flags depend on
// the subcommand. Flags may appear before or after the subcommand, as
// "--flag value", "--flag=value", "-n value", "-nvalue" or "-n=value".

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_ARGS_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_ARGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/cpp/connection.h"
#include "client/cpp/resource_ref.h"

namespace informerd {
namespace informerctl {

enum class Command { kResources, kGet, kWatch, kHealth };

// table: kubectl's columns for the type (columns.h); wide: with the extra
// columns of kubectl's -o wide.
enum class OutputFormat { kTable, kWide, kJson, kYaml, kName };

struct CommandLine {
  // True for --help / -h: print the usage and do nothing else.
  bool help = false;
  Command command = Command::kResources;
  client::ConnectionOptions connection;
  // get and watch: the RESOURCE argument, as typed and as parsed.
  std::string resource_arg;
  client::ResourceRef resource;
  // get: the optional NAME argument.
  std::string name;
  // -n; empty when not given.
  std::string namespace_name;
  bool all_namespaces = false;
  std::string label_selector;
  std::string field_selector;
  // watch only.
  std::string resource_version;
  bool initial_events = false;
  bool bookmarks = false;
  OutputFormat output = OutputFormat::kTable;
};

// Used when --server is not given.
extern const char kDefaultServer[];

extern const char kUsage[];

// The environment variable holding a bearer token, for callers that cannot
// use --token-file. There is no --token flag: a command line is visible to
// every local user.
inline constexpr char kTokenEnvironmentVariable[] = "INFORMERD_TOKEN";

// args excludes the program name; env_token is the value of
// INFORMERD_TOKEN (empty or blank: none). INVALID_ARGUMENT, naming the flag
// or argument at fault, for anything that is not a valid command line,
// among them a token without --tls or --allow-token-without-tls.
absl::StatusOr<CommandLine> ParseCommandLine(
    const std::vector<std::string>& args, absl::string_view env_token = "");

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_ARGS_H_
