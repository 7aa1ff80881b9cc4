#include "server/service/client_host.h"

#include <arpa/inet.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace informerd::service {
namespace {

std::string PeerHost(std::string_view peer) {
  size_t colon = peer.rfind(':');
  size_t first = peer.find(':');
  return std::string(colon == std::string_view::npos || colon == first ? peer
                                                                       : peer.substr(0, colon));
}

bool IsLoopback(absl::string_view host) {
  return absl::StartsWith(host, "ipv4:127.") || host == "ipv6:[::1]" ||
         absl::StartsWith(host, "ipv6:[::ffff:127.");
}

// "ipv4:A" or "ipv6:[A]" for an IP address A, else nullopt.
std::optional<std::string> AsHost(absl::string_view address) {
  if (address.empty() || address.size() > INET6_ADDRSTRLEN) return std::nullopt;
  std::string text(address);
  unsigned char buffer[sizeof(struct in6_addr)];
  if (inet_pton(AF_INET, text.c_str(), buffer) == 1) return absl::StrCat("ipv4:", text);
  if (inet_pton(AF_INET6, text.c_str(), buffer) == 1) return absl::StrCat("ipv6:[", text, "]");
  return std::nullopt;
}

}  // namespace

std::string ClientHost(std::string_view peer, std::optional<std::string_view> forwarded_for,
                       bool trust_forwarded_for) {
  std::string host = PeerHost(peer);
  // gRPC's in-process channel (its peer has no address: gRPC 1.51 names
  // it "unknown"; TCP and Unix peers always have one): only informerd
  // itself can call over it.
  const bool in_process = peer == "unknown" || peer == "inproc";
  if (!forwarded_for.has_value() || (!in_process && (!trust_forwarded_for || !IsLoopback(host)))) {
    return host;
  }
  absl::string_view last(forwarded_for->data(), forwarded_for->size());
  if (size_t comma = last.rfind(','); comma != absl::string_view::npos) {
    last = last.substr(comma + 1);
  }
  std::optional<std::string> forwarded = AsHost(absl::StripAsciiWhitespace(last));
  return forwarded.has_value() ? *forwarded : host;
}

}  // namespace informerd::service
