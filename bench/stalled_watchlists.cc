// stalled_watchlists: opens many WatchList streams (send_initial_events) on
// one informerd and never reads them, then waits for each to end; for the
// stalled-streams benchmark (bench/stalled_watchlists.sh, the "secure by
// default" issue's item 4). Prints one line of counts:
//   streams=N refused=R ended=E still_open=O ended_in_s=T codes=CODE:COUNT,...
// "refused" streams ended with RESOURCE_EXHAUSTED (the initial events
// budget or the watch limits); "ended" is every stream that ended within
// --timeout_s, refused ones included.
//
// Its clients keep their HTTP/2 windows small (no BDP probing, 1 KB of
// lookahead), so informerd's writes wait for them as for a client that
// stopped reading; streams spread over channels of at most 100 streams.
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "informerd/v1/informerd.grpc.pb.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "informerd's gRPC address");
ABSL_FLAG(std::string, namespace_, "", "the namespace whose configmaps are watched");
ABSL_FLAG(int, streams, 1000, "never-read WatchList streams to open");
ABSL_FLAG(int, timeout_s, 120, "how long to wait for them to end");

namespace informerd::bench {
namespace {

constexpr int kStreamsPerChannel = 100;

// One never-read stream, driven by gRPC's async API: the only event it
// waits for is its end.
struct Stream {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientAsyncReader<v1::WatchEvent>> reader;
  grpc::Status status;
  bool started = false;
  bool ended = false;
};

int Run() {
  const int count = absl::GetFlag(FLAGS_streams);
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  std::vector<std::unique_ptr<v1::Cache::Stub>> stubs;
  for (int i = 0; i < (count + kStreamsPerChannel - 1) / kStreamsPerChannel; ++i) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 1024);
    // A channel of its own each, not a shared subchannel.
    args.SetInt("stalled_watchlists.channel", i);
    channels.push_back(grpc::CreateCustomChannel(absl::GetFlag(FLAGS_target),
                                                 grpc::InsecureChannelCredentials(), args));
    stubs.push_back(v1::Cache::NewStub(channels.back()));
  }
  v1::WatchRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(absl::GetFlag(FLAGS_namespace_));
  request.set_send_initial_events(true);
  request.set_allow_bookmarks(true);

  grpc::CompletionQueue queue;
  std::vector<std::unique_ptr<Stream>> streams;
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + absl::Seconds(absl::GetFlag(FLAGS_timeout_s));
  for (int i = 0; i < count; ++i) {
    auto stream = std::make_unique<Stream>();
    stream->context.set_deadline(absl::ToChronoTime(deadline + absl::Seconds(5)));
    // Tag: the stream's index * 2 (+1 for its Finish).
    stream->reader = stubs[i / kStreamsPerChannel]->AsyncWatch(
        &stream->context, request, &queue, reinterpret_cast<void*>(uintptr_t{2} * i));
    streams.push_back(std::move(stream));
  }
  int ended = 0;
  absl::Time last_end = start;
  std::map<std::string, int> codes;
  while (ended < count) {
    void* tag = nullptr;
    bool ok = false;
    const grpc::CompletionQueue::NextStatus next =
        queue.AsyncNext(&tag, &ok, absl::ToChronoTime(deadline));
    if (next != grpc::CompletionQueue::GOT_EVENT) break;
    const uintptr_t value = reinterpret_cast<uintptr_t>(tag);
    Stream& stream = *streams[value / 2];
    if (value % 2 == 0) {
      // Started (or failed to): ask for the end only, never for a message.
      stream.started = ok;
      stream.reader->Finish(&stream.status, reinterpret_cast<void*>(value + 1));
    } else {
      stream.ended = true;
      ++ended;
      last_end = absl::Now();
      ++codes[absl::StrCat(static_cast<int>(stream.status.error_code()))];
    }
  }
  // Stalled streams are cancelled (CANCELLED here); refused ones end with
  // RESOURCE_EXHAUSTED before any write.
  int refused = 0;
  for (const auto& stream : streams) {
    if (stream->ended && stream->status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++refused;
    }
  }
  std::string code_list;
  for (const auto& [code, n] : codes) {
    absl::StrAppend(&code_list, code_list.empty() ? "" : ",", code, ":", n);
  }
  std::printf("streams=%d refused=%d ended=%d still_open=%d ended_in_s=%.1f codes=%s\n", count,
              refused, ended, count - ended, absl::ToDoubleSeconds(last_end - start),
              code_list.c_str());
  std::fflush(stdout);
  for (auto& stream : streams) stream->context.TryCancel();
  // Drain what the cancellations complete before the queue goes.
  queue.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (queue.Next(&tag, &ok)) {
  }
  return ended == count ? 0 : 1;
}

}  // namespace
}  // namespace informerd::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return informerd::bench::Run();
}
