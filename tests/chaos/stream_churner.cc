// stream_churner: a badly behaved informerd client for the chaos suite. It
// opens Watch streams in a tight loop and abandons each one early: every
// other stream is cancelled before its first event, the rest after one
// event. The server must neither leak per-stream state nor slow down for
// its other watchers.
//
// Usage: stream_churner --server ADDR --namespace NS --count N
// Exits 0 after N streams, whatever their outcome (an overloaded server may
// refuse some); prints how many got an event on stderr.

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "informerd/v1/informerd.grpc.pb.h"

ABSL_FLAG(std::string, server, "", "informerd gRPC address");
ABSL_FLAG(std::string, namespace, "", "namespace of the configmaps to watch");
ABSL_FLAG(int, count, 100, "streams to open");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string server = absl::GetFlag(FLAGS_server);
  const int count = absl::GetFlag(FLAGS_count);
  if (server.empty() || count < 0) {
    std::cerr << "stream_churner: --server is required and --count must be >= 0"
              << std::endl;
    return 2;
  }
  std::unique_ptr<informerd::v1::Cache::Stub> stub =
      informerd::v1::Cache::NewStub(
          grpc::CreateChannel(server, grpc::InsecureChannelCredentials()));
  informerd::v1::WatchRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(absl::GetFlag(FLAGS_namespace));
  request.set_send_initial_events(true);
  request.set_allow_bookmarks(true);

  int with_event = 0;
  for (int i = 0; i < count; ++i) {
    grpc::ClientContext context;
    // A hung server must not hang the suite.
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    std::unique_ptr<grpc::ClientReader<informerd::v1::WatchEvent>> reader =
        stub->Watch(&context, request);
    informerd::v1::WatchEvent event;
    if (i % 2 == 1 && reader->Read(&event)) ++with_event;
    context.TryCancel();
    reader->Finish();
  }
  std::cerr << "stream_churner: " << count << " streams, " << with_event
            << " read an event before cancelling" << std::endl;
  return 0;
}
