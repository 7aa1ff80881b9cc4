#include "server/service/transport.h"

#include <grpc/grpc.h>
#include <grpcpp/resource_quota.h>

#include <algorithm>
#include <climits>

#include "server/service/cache_service.h"

namespace informerd::service {
namespace {

int Milliseconds(absl::Duration duration) {
  return static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(duration), INT_MAX));
}

}  // namespace

void ConfigureTransport(const limits::TransportLimits& limits, grpc::ServerBuilder* builder) {
  builder->SetMaxReceiveMessageSize(CacheService::kMaxRequestBytes);
  builder->AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS,
                              static_cast<int>(std::min<size_t>(limits.max_concurrent_streams,
                                                                INT_MAX)));
  builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS,
                              Milliseconds(limits.max_connection_idle));
  builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS,
                              Milliseconds(limits.max_connection_age));
  builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                              Milliseconds(limits.max_connection_age_grace));
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                              Milliseconds(limits.min_ping_interval));
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 2);
  // Clients may keep a watch's connection alive with pings while it is
  // quiet (no RPC data for minutes is normal for a Watch).
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  grpc::ResourceQuota quota("informerd");
  quota.Resize(limits.memory_quota_bytes);
  builder->SetResourceQuota(quota);
}

}  // namespace informerd::service
