#include "client/cpp/informerctl/args.h"

#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace informerd {
namespace informerctl {

const char kDefaultServer[] = "localhost:50051";

const char kUsage[] =
    R"(Usage: informerctl [global flags] COMMAND [flags]

Commands:
  resources                         the served resources and their caches
  get RESOURCE [NAME]               objects from the cache
  watch RESOURCE                    stream changes, one line per event
  health                            grpc.health.v1 check; exit 0 if SERVING (a failing
                                    connection is retried for up to 20 s)

Global flags:
  --server ADDR                     host:port or dns:///name:port (default localhost:50051)
  --token-file FILE                 bearer token, the file re-read per call; or
                                    the environment variable INFORMERD_TOKEN
  --tls [--ca-file F] [--cert-file F --key-file F]
  --allow-token-without-tls         send the token without --tls (only to a server
                                    on loopback or behind a trusted proxy)

get and watch flags:
  -n, --namespace NS                default "default" for namespaced resources
  -A, --all-namespaces
  -l, --selector SELECTOR           label selector
  --field-selector SELECTOR
  -o, --output FORMAT               table (default): kubectl's columns for the
                                    type; wide: and -o wide's; json; yaml;
                                    name (get only: kind/name). watch: a table
                                    with an EVENT column; -o json: one
                                    {"type":...,"object":...} line per event

watch flags:
  --resource-version RV             resume after RV
  --initial-events                  first the current state as ADDED events
  --bookmarks                       show BOOKMARK events

RESOURCE: pods, po, deployments.apps, deployments.v1.apps, apps/v1/deployments
)";

namespace {

enum class Flag {
  kServer,
  kToken,
  kTokenFile,
  kAllowTokenWithoutTls,
  kTls,
  kCaFile,
  kCertFile,
  kKeyFile,
  kHelp,
  kNamespace,
  kAllNamespaces,
  kSelector,
  kFieldSelector,
  kOutput,
  kResourceVersion,
  kInitialEvents,
  kBookmarks,
};

struct FlagSpec {
  Flag flag;
  const char* long_name;
  char short_name;  // '\0' if none
  bool takes_value;
};

constexpr FlagSpec kFlags[] = {
    {Flag::kServer, "server", '\0', true},
    {Flag::kToken, "token", '\0', true},
    {Flag::kTokenFile, "token-file", '\0', true},
    {Flag::kAllowTokenWithoutTls, "allow-token-without-tls", '\0', false},
    {Flag::kTls, "tls", '\0', false},
    {Flag::kCaFile, "ca-file", '\0', true},
    {Flag::kCertFile, "cert-file", '\0', true},
    {Flag::kKeyFile, "key-file", '\0', true},
    {Flag::kHelp, "help", 'h', false},
    {Flag::kNamespace, "namespace", 'n', true},
    {Flag::kAllNamespaces, "all-namespaces", 'A', false},
    {Flag::kSelector, "selector", 'l', true},
    {Flag::kFieldSelector, "field-selector", '\0', true},
    {Flag::kOutput, "output", 'o', true},
    {Flag::kResourceVersion, "resource-version", '\0', true},
    {Flag::kInitialEvents, "initial-events", '\0', false},
    {Flag::kBookmarks, "bookmarks", '\0', false},
};

absl::Status UsageError(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

// A flag occurrence as the user wrote it, for error messages.
struct SeenFlag {
  const FlagSpec* spec;
  std::string spelling;
};

const FlagSpec* FindLong(absl::string_view name) {
  for (const FlagSpec& spec : kFlags) {
    if (name == spec.long_name) return &spec;
  }
  return nullptr;
}

const FlagSpec* FindShort(char name) {
  for (const FlagSpec& spec : kFlags) {
    if (spec.short_name != '\0' && spec.short_name == name) return &spec;
  }
  return nullptr;
}

bool IsGlobal(Flag flag) {
  switch (flag) {
    case Flag::kServer:
    case Flag::kToken:
    case Flag::kTokenFile:
    case Flag::kAllowTokenWithoutTls:
    case Flag::kTls:
    case Flag::kCaFile:
    case Flag::kCertFile:
    case Flag::kKeyFile:
    case Flag::kHelp:
      return true;
    default:
      return false;
  }
}

bool AllowedFor(Command command, Flag flag) {
  if (IsGlobal(flag)) return true;
  switch (command) {
    case Command::kResources:
    case Command::kHealth:
      return false;
    case Command::kGet:
      return flag != Flag::kResourceVersion && flag != Flag::kInitialEvents &&
             flag != Flag::kBookmarks;
    case Command::kWatch:
      return true;
  }
  return false;
}

const char* CommandName(Command command) {
  switch (command) {
    case Command::kResources:
      return "resources";
    case Command::kGet:
      return "get";
    case Command::kWatch:
      return "watch";
    case Command::kHealth:
      return "health";
  }
  return "";
}

absl::StatusOr<Command> ParseCommand(absl::string_view word) {
  for (Command command : {Command::kResources, Command::kGet, Command::kWatch,
                          Command::kHealth}) {
    if (word == CommandName(command)) return command;
  }
  return UsageError(absl::StrCat("unknown command \"", word,
                                 "\" (want resources, get, watch or health)"));
}

absl::StatusOr<OutputFormat> ParseOutput(absl::string_view spelling,
                                         absl::string_view value,
                                         Command command) {
  if (value == "table") return OutputFormat::kTable;
  if (value == "wide") return OutputFormat::kWide;
  if (value == "json") return OutputFormat::kJson;
  if (value == "yaml") return OutputFormat::kYaml;
  if (value == "name" && command == Command::kGet) return OutputFormat::kName;
  return UsageError(absl::StrCat(
      spelling, ": unknown format \"", value, "\" for ", CommandName(command),
      command == Command::kGet ? " (want table, wide, json, yaml or name)"
                               : " (want table, wide, json or yaml)"));
}

// Splits argv into flags with their values and positional arguments.
class Tokenizer {
 public:
  explicit Tokenizer(const std::vector<std::string>& args) : args_(args) {}

  absl::Status Run() {
    for (size_t i = 0; i < args_.size(); ++i) {
      absl::string_view arg = args_[i];
      if (only_positional_ || arg == "-" || !absl::StartsWith(arg, "-")) {
        positional.emplace_back(arg);
      } else if (arg == "--") {
        only_positional_ = true;
      } else if (absl::Status status = ParseFlag(arg, &i); !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }

  std::vector<std::pair<SeenFlag, std::string>> flags;
  std::vector<std::string> positional;

 private:
  absl::Status ParseFlag(absl::string_view arg, size_t* index) {
    const FlagSpec* spec;
    std::string spelling;
    absl::string_view inline_value;
    bool has_inline_value = false;
    if (absl::ConsumePrefix(&arg, "--")) {
      size_t equals = arg.find('=');
      absl::string_view name = arg.substr(0, equals);
      spelling = absl::StrCat("--", name);
      spec = FindLong(name);
      if (equals != absl::string_view::npos) {
        inline_value = arg.substr(equals + 1);
        has_inline_value = true;
      }
    } else {
      arg.remove_prefix(1);
      spelling = absl::StrCat("-", arg.substr(0, 1));
      spec = FindShort(arg[0]);
      if (arg.size() > 1) {
        inline_value = arg.substr(1);
        absl::ConsumePrefix(&inline_value, "=");
        has_inline_value = true;
      }
    }
    if (spec == nullptr) {
      return UsageError(absl::StrCat("unknown flag \"", spelling, "\""));
    }
    std::string value;
    if (!spec->takes_value) {
      if (has_inline_value) {
        return UsageError(absl::StrCat(spelling, ": takes no value"));
      }
    } else if (has_inline_value) {
      value = std::string(inline_value);
    } else if (*index + 1 < args_.size()) {
      value = args_[++*index];
    } else {
      return UsageError(absl::StrCat(spelling, ": needs a value"));
    }
    flags.push_back({SeenFlag{spec, std::move(spelling)}, std::move(value)});
    return absl::OkStatus();
  }

  const std::vector<std::string>& args_;
  bool only_positional_ = false;
};

absl::Status ApplyFlag(const SeenFlag& seen, std::string value,
                       CommandLine* line) {
  switch (seen.spec->flag) {
    case Flag::kServer:
      line->connection.address = std::move(value);
      break;
    case Flag::kToken:
      // Known, to say why it is refused: a command line is readable by
      // every local user (ps, /proc/PID/cmdline) and lands in shell history.
      return UsageError(
          "--token: a token on the command line is visible to other users "
          "(ps); use --token-file FILE or the environment variable "
          "INFORMERD_TOKEN");
    case Flag::kTokenFile:
      line->connection.token_file = std::move(value);
      break;
    case Flag::kAllowTokenWithoutTls:
      line->connection.allow_token_without_tls = true;
      break;
    case Flag::kTls:
      line->connection.tls = true;
      break;
    case Flag::kCaFile:
      line->connection.ca_file = std::move(value);
      break;
    case Flag::kCertFile:
      line->connection.cert_file = std::move(value);
      break;
    case Flag::kKeyFile:
      line->connection.key_file = std::move(value);
      break;
    case Flag::kHelp:
      line->help = true;
      break;
    case Flag::kNamespace:
      line->namespace_name = std::move(value);
      break;
    case Flag::kAllNamespaces:
      line->all_namespaces = true;
      break;
    case Flag::kSelector:
      line->label_selector = std::move(value);
      break;
    case Flag::kFieldSelector:
      line->field_selector = std::move(value);
      break;
    case Flag::kOutput: {
      absl::StatusOr<OutputFormat> output =
          ParseOutput(seen.spelling, value, line->command);
      if (!output.ok()) return output.status();
      line->output = *output;
      break;
    }
    case Flag::kResourceVersion:
      line->resource_version = std::move(value);
      break;
    case Flag::kInitialEvents:
      line->initial_events = true;
      break;
    case Flag::kBookmarks:
      line->bookmarks = true;
      break;
  }
  return absl::OkStatus();
}

absl::Status ApplyPositional(const std::vector<std::string>& positional,
                             CommandLine* line) {
  const char* command = CommandName(line->command);
  size_t max_args = 0;
  switch (line->command) {
    case Command::kResources:
    case Command::kHealth:
      break;
    case Command::kGet:
      max_args = 2;
      break;
    case Command::kWatch:
      max_args = 1;
      break;
  }
  if (positional.size() - 1 > max_args) {
    return UsageError(absl::StrCat(command, ": unexpected argument \"",
                                   positional[max_args + 1], "\""));
  }
  if (max_args == 0) return absl::OkStatus();
  if (positional.size() < 2) {
    return UsageError(absl::StrCat(command, ": missing RESOURCE"));
  }
  line->resource_arg = positional[1];
  absl::StatusOr<client::ResourceRef> resource =
      client::ParseResourceRef(line->resource_arg);
  if (!resource.ok()) {
    return UsageError(absl::StrCat(command, ": ", resource.status().message()));
  }
  line->resource = *std::move(resource);
  if (positional.size() > 2) line->name = positional[2];
  if (positional.size() > 2 && line->name.empty()) {
    return UsageError(absl::StrCat(command, ": NAME is empty"));
  }
  return absl::OkStatus();
}

absl::Status CheckCombinations(const CommandLine& line) {
  const client::ConnectionOptions& connection = line.connection;
  if (connection.address.empty()) return UsageError("--server: empty");
  if (!connection.token.empty() && !connection.token_file.empty()) {
    return UsageError("INFORMERD_TOKEN, --token-file: give at most one");
  }
  if ((!connection.token.empty() || !connection.token_file.empty()) &&
      !connection.tls && !connection.allow_token_without_tls) {
    return UsageError(
        absl::StrCat(connection.token.empty() ? "--token-file"
                                              : "INFORMERD_TOKEN",
                     ": a token needs --tls (or --allow-token-without-tls)"));
  }
  if (!connection.tls && (!connection.ca_file.empty() ||
                          !connection.cert_file.empty() ||
                          !connection.key_file.empty())) {
    return UsageError("--ca-file, --cert-file, --key-file: require --tls");
  }
  if (connection.cert_file.empty() != connection.key_file.empty()) {
    return UsageError("--cert-file, --key-file: give both or neither");
  }
  if (line.all_namespaces && !line.namespace_name.empty()) {
    return UsageError("-A, -n: give at most one");
  }
  if (!line.name.empty() && line.all_namespaces) {
    return UsageError("-A: cannot get an object by name in all namespaces");
  }
  if (!line.name.empty() && !line.label_selector.empty()) {
    return UsageError("-l: cannot be used together with NAME");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CommandLine> ParseCommandLine(
    const std::vector<std::string>& args, absl::string_view env_token) {
  Tokenizer tokens(args);
  if (absl::Status status = tokens.Run(); !status.ok()) return status;

  CommandLine line;
  line.connection.address = kDefaultServer;
  line.connection.token = std::string(absl::StripAsciiWhitespace(env_token));
  for (const auto& [seen, value] : tokens.flags) {
    if (seen.spec->flag == Flag::kHelp) line.help = true;
  }
  if (line.help) return line;
  if (tokens.positional.empty()) return UsageError("missing COMMAND");
  absl::StatusOr<Command> command = ParseCommand(tokens.positional[0]);
  if (!command.ok()) return command.status();
  line.command = *command;
  line.output = OutputFormat::kTable;

  for (auto& [seen, value] : tokens.flags) {
    if (!AllowedFor(line.command, seen.spec->flag)) {
      return UsageError(absl::StrCat(seen.spelling, ": not a flag of ",
                                     CommandName(line.command)));
    }
    if (absl::Status status = ApplyFlag(seen, std::move(value), &line);
        !status.ok()) {
      return status;
    }
  }
  if (absl::Status status = ApplyPositional(tokens.positional, &line);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckCombinations(line); !status.ok()) {
    return status;
  }
  return line;
}

}  // namespace informerctl
}  // namespace informerd
