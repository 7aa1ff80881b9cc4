// InformerdUpstream: another informerd (a tier's root) as the upstream of
// this one (a leaf), instead of the kube-apiserver.
//
// Discovery is the root's ListResources (in the resource's configured
// namespace, if any): a resource is served by the leaf once the root serves
// it (a resource the root does not list, or does not let the leaf list, is
// pending and looked up again). Each served resource
// is read by an InformerdReader over one shared channel, retrying with
// informerd's clients' backoff (200 ms to 1 s, not the apiserver's 30 s
// cap): a root comes back at once, and resuming from its history is cheap.
//
// The leaf's identity toward the root is its own: a bearer token read from
// a file for every call (a projected service-account token rotates), and
// with grpcs:// its client certificate for a root that asks for mTLS; the
// root's certificate must name the --upstream host. The
// channel keeps its connection alive with pings (every 30 s, within the
// root's minClientPingIntervalSeconds default), so a root that vanished
// without closing the connection is noticed and the Watch resumed. The
// readers share one PendingListBudget: the root's initial lists hold at
// most upstreamListMaxBytes together (half the process's memory limit by
// default) and upstreamListMaxItems each, until their end bookmarks.
//
// Thread safety: thread-safe; readers it made may outlive it.
#ifndef INFORMERD_SERVER_TIER_INFORMERD_UPSTREAM_H_
#define INFORMERD_SERVER_TIER_INFORMERD_UPSTREAM_H_

#include <memory>
#include <optional>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/config/config.h"
#include "server/limits/memory_limit.h"
#include "server/service/served_resource.h"
#include "server/tier/informerd_reader.h"
#include "server/tier/pending_list_budget.h"

namespace informerd::tier {

class InformerdUpstream : public service::Upstream {
 public:
  // Checks `config` (config::CheckUpstream) and that its files can be
  // read; errors name the flag. The CA and the client certificate are
  // re-read every `refresh_interval` (the server's tls.refreshSeconds), so
  // rotated files reach new connections. Connects lazily: a root that is
  // down is retried by discovery and the readers.
  static absl::StatusOr<std::unique_ptr<InformerdUpstream>> Create(
      const config::UpstreamConfig& config, absl::Duration refresh_interval = absl::Minutes(1));

  // The bounds `config` sets for the root's initial lists: its
  // list_max_bytes, or else half of `memory_limit`, or else 4 GiB.
  static PendingListBounds ListBounds(const config::UpstreamConfig& config,
                                      const std::optional<limits::MemoryLimit>& memory_limit);

  absl::StatusOr<kube::ResourceInfo> Discover(const config::ResourceConfig& wanted) override;
  std::unique_ptr<kube::UpstreamReader> NewReader(const kube::ResourceInfo& info,
                                                  const config::ResourceConfig& wanted,
                                                  const service::ServedResourceOptions& options,
                                                  kube::ListWatchSink* sink) override;

  // Adds the leaf's bearer token to a call (nothing without a token file).
  absl::Status SetUpCall(grpc::ClientContext* context) const;

  // "grpc://host:port", for logs.
  const std::string& url() const { return url_; }

 private:
  InformerdUpstream(std::string url, std::string token_file,
                    std::shared_ptr<grpc::Channel> channel,
                    std::shared_ptr<PendingListBudget> pending_lists)
      : url_(std::move(url)),
        token_file_(std::move(token_file)),
        channel_(std::move(channel)),
        pending_lists_(std::move(pending_lists)) {}

  const std::string url_;
  const std::string token_file_;
  const std::shared_ptr<grpc::Channel> channel_;
  const std::shared_ptr<PendingListBudget> pending_lists_;
};

}  // namespace informerd::tier

#endif  // INFORMERD_SERVER_TIER_INFORMERD_UPSTREAM_H_
