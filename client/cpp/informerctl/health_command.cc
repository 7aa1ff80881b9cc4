#include <chrono>
#include <iostream>
#include <vector>

#include <grpcpp/generic/generic_stub.h>

#include "absl/synchronization/notification.h"
#include "client/cpp/informerctl/commands.h"
#include "client/cpp/informerctl/errors.h"
#include "client/cpp/informerctl/health_wire.h"

namespace informerd {
namespace informerctl {

namespace {

constexpr std::chrono::seconds kHealthWaitForReady(20);

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

}  // namespace

int RunHealth(const CommandLine& line) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      client::Connect(line.connection);
  if (!channel.ok()) return ReportError(channel.status());
  grpc::GenericStub stub(*channel);

  grpc::ClientContext context;
  absl::Status prepared =
      client::PrepareContext(line.connection, &context, /*streaming=*/false);
  if (!prepared.ok()) return ReportError(prepared);
  // A probe (the chart's helm test) judges the server, not one connection
  // attempt: a connection refused or cut during its handshake is tried
  // again until the deadline.
  context.set_wait_for_ready(true);
  context.set_deadline(std::chrono::system_clock::now() + kHealthWaitForReady);
  grpc::Slice request_slice(EncodeHealthCheckRequest(""));
  grpc::ByteBuffer request(&request_slice, 1);
  grpc::ByteBuffer response;
  grpc::Status status;
  absl::Notification done;
  stub.UnaryCall(&context, kHealthCheckMethod, grpc::StubOptions(), &request,
                 &response, [&status, &done](grpc::Status call_status) {
                   status = std::move(call_status);
                   done.Notify();
                 });
  done.WaitForNotification();
  if (!status.ok()) return ReportError(FromGrpcStatus(status));

  absl::StatusOr<int> serving = DecodeServingStatus(Flatten(response));
  if (!serving.ok()) return ReportError(serving.status());
  std::cout << ServingStatusName(*serving) << std::endl;
  return *serving == static_cast<int>(ServingStatus::kServing) ? kExitOk
                                                               : kExitError;
}

}  // namespace informerctl
}  // namespace informerd
