#include "client/cpp/example/example_args.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace informerd {
namespace example {

namespace {

// "ipv4" or "ipv6" for an IP literal with a port ("10.0.0.1:80",
// "[::1]:80"); empty for anything else (a host name among them: gRPC's
// address-list targets take IP literals only).
std::string IpFamily(absl::string_view address) {
  size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos) return "";
  int port = 0;
  if (!absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 1 ||
      port > 65535) {
    return "";
  }
  std::string host(address.substr(0, colon));
  in6_addr ip6;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']' &&
      inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &ip6) == 1) {
    return "ipv6";
  }
  in_addr ip4;
  return inet_pton(AF_INET, host.c_str(), &ip4) == 1 ? "ipv4" : "";
}

// The gRPC target of --server's value: itself, or for a comma-separated
// list the "ipv4:" or "ipv6:" target of its addresses.
absl::StatusOr<std::string> ServerTarget(absl::string_view server) {
  if (server.find(',') == absl::string_view::npos) return std::string(server);
  std::vector<absl::string_view> addresses = absl::StrSplit(server, ',');
  std::string family;
  for (absl::string_view address : addresses) {
    std::string this_family = IpFamily(address);
    if (this_family.empty() || (!family.empty() && this_family != family)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--server: several addresses must all be IPv4 or all be IPv6 "
          "\"ip:port\" (use a dns:/// name for host names), not \"",
          address, "\""));
    }
    family = this_family;
  }
  return absl::StrCat(family, ":", absl::StrJoin(addresses, ","));
}

}  // namespace

const char kExampleUsage[] =
    "usage: example --server ADDR --resource RESOURCE [-n NS] [-l SELECTOR] "
    "[--token-file F] [--ca-file F]\n";

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
      {"--ca-file", &parsed.ca_file},
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
  absl::StatusOr<std::string> target = ServerTarget(parsed.server);
  if (!target.ok()) return target.status();
  parsed.server = *std::move(target);
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
