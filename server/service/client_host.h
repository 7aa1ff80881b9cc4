// The client host a call comes from, as the per-caller limits and budgets
// count callers without a verified identity.
//
// Behind a proxy in the same pod (the chart's HAProxy) every call's peer
// is the loopback address, so the proxy names the client in the
// x-forwarded-for header (overwriting whatever the client sent). That
// header is believed only when informerd is told a proxy is there
// (--trust-forwarded-for) and the peer is on loopback: a client that
// reaches informerd directly cannot pick its own address. A call over
// gRPC's in-process channel comes from informerd itself (its Kubernetes
// API port, which names its HTTP client there), so its header is believed.
#ifndef INFORMERD_SERVER_SERVICE_CLIENT_HOST_H_
#define INFORMERD_SERVER_SERVICE_CLIENT_HOST_H_

#include <optional>
#include <string>
#include <string_view>

namespace informerd::service {

// `peer` as gRPC gives it ("ipv4:10.0.0.1:5000", "ipv6:[::1]:5000");
// `forwarded_for` the x-forwarded-for header, if any. Returns the host in
// gRPC's form without the port ("ipv4:10.0.0.1", "ipv6:[fd00::1]"). The
// header's last entry is used when `trust_forwarded_for`, the peer is on
// loopback and that entry is an IP address (or the peer is "inproc",
// whatever `trust_forwarded_for`); otherwise the peer's host.
std::string ClientHost(std::string_view peer, std::optional<std::string_view> forwarded_for,
                       bool trust_forwarded_for);

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_CLIENT_HOST_H_
