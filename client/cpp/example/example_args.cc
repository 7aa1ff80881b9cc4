#include "client/cpp/example/example_args.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace informerd {
namespace example {

const char kExampleUsage[] =
    "usage: example --server ADDR --resource RESOURCE [-n NS] [-l SELECTOR] "
    "[--token-file F]\n";

absl::StatusOr<ExampleArgs> ParseExampleArgs(
    const std::vector<std::string>& args) {
  ExampleArgs parsed;
  std::string resource;
  const std::map<absl::string_view, std::string*> destinations = {
      {"--server", &parsed.server},
      {"--resource", &resource},
      {"-n", &parsed.watch_namespace},
      {"--namespace", &parsed.watch_namespace},
      {"-l", &parsed.label_selector},
      {"--selector", &parsed.label_selector},
      {"--token-file", &parsed.token_file},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    absl::string_view flag = arg;
    std::string value;
    bool has_value = false;
    if (size_t equals = arg.find('='); equals != absl::string_view::npos) {
      flag = arg.substr(0, equals);
      value = std::string(arg.substr(equals + 1));
      has_value = true;
    }
    auto destination = destinations.find(flag);
    if (destination == destinations.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument \"", arg, "\""));
    }
    if (!has_value) {
      if (i + 1 == args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag, ": needs a value"));
      }
      value = args[++i];
    }
    *destination->second = std::move(value);
  }
  if (parsed.server.empty()) {
    return absl::InvalidArgumentError("--server: required");
  }
  if (resource.empty()) {
    return absl::InvalidArgumentError("--resource: required");
  }
  absl::StatusOr<client::ResourceRef> ref = client::ParseResourceRef(resource);
  if (!ref.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--resource: ", ref.status().message()));
  }
  parsed.resource = *std::move(ref);
  return parsed;
}

}  // namespace example
}  // namespace informerd
