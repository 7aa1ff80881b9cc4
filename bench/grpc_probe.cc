// grpc_probe: the physical limit of gRPC streaming on this machine, the
// reference informerd's fan-out is measured against (scenario 1c of
// docs/BENCHMARKS.md). It answers informerd.v1.Cache/Watch, whatever the
// request, and sends every open stream the same ~10 KB WatchEvent at a fixed
// rate. Nothing is parsed, looked up or serialized per event: the object
// part of the message is serialized once into one grpc::Slice shared by all
// writes; per event only a small header (type and resource_version) is
// built, once, and shared by all streams.
//
// An event's resource_version is the steady-clock time (nanoseconds) when
// the probe produced it, so a client on the same machine measures delivery
// latency as its arrival time minus the version (CLOCK_MONOTONIC is one
// clock for all processes).
//
// A stream whose queue reaches --max_queue events (the client does not keep
// up) is ended with RESOURCE_EXHAUSTED, as informerd ends a watcher that
// falls off its history.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <unordered_set>

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

#include "bench/measurement.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "informerd/v1/informerd.pb.h"

ABSL_FLAG(std::string, address, "127.0.0.1:20072", "gRPC listen address");
ABSL_FLAG(double, rate, 20, "events per second sent to every stream");
ABSL_FLAG(int, object_bytes, 10240, "size of the ConfigMap's data value");
ABSL_FLAG(int, max_queue, 1000, "events queued per stream before it is ended");

namespace informerd::bench {
namespace {

constexpr char kWatchMethod[] = "/informerd.v1.Cache/Watch";

// The object part of every event (field 2 of WatchEvent), serialized once:
// a ConfigMap shaped like the fan-out benchmark's, as informerd would send
// it.
grpc::Slice SerializedObject(size_t data_bytes) {
  v1::WatchEvent event;
  v1::Object* object = event.mutable_object();
  object->set_namespace_("bench-probe");
  object->set_name("fanout-0");
  object->set_uid("5f3c3f0e-4c4e-4a3b-9d67-0c1f4c8c2a11");
  object->set_resource_version("1");
  (*object->mutable_labels())["app"] = "fanout";
  object->set_json(absl::StrCat(
      "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"fanout-0\","
      "\"namespace\":\"bench-probe\",\"uid\":\"5f3c3f0e-4c4e-4a3b-9d67-0c1f4c8c2a11\","
      "\"resourceVersion\":\"1\",\"creationTimestamp\":\"2024-01-01T00:00:00Z\","
      "\"labels\":{\"app\":\"fanout\"}},\"data\":{\"value\":\"",
      std::string(data_bytes, 'x'), "\"}}"));
  return grpc::Slice(event.SerializeAsString());
}

// Fields 1 and 3 of a WatchEvent; appended to the object part they make a
// whole message (protobuf fields may come in any order).
grpc::Slice SerializedHeader(int64_t version) {
  v1::WatchEvent event;
  event.set_type(v1::WatchEvent::MODIFIED);
  event.set_resource_version(absl::StrCat(version));
  return grpc::Slice(event.SerializeAsString());
}

class Streams;

// One Watch stream. Owned by gRPC from creation until OnDone, which deletes
// it; the Streams registry only points at it while it is registered.
class ProbeStream : public grpc::ServerGenericBidiReactor {
 public:
  ProbeStream(Streams* streams, size_t max_queue);

  // Queues one event; called by the ticker thread.
  void Send(const grpc::Slice& header, const grpc::Slice& object);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  void WriteNextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FinishLocked(grpc::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Streams* const streams_;
  const size_t max_queue_;
  absl::Mutex mu_;
  std::deque<grpc::ByteBuffer> pending_ ABSL_GUARDED_BY(mu_);
  grpc::ByteBuffer in_flight_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool ending_ ABSL_GUARDED_BY(mu_) = false;   // no more writes; Finish when idle
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status end_status_ ABSL_GUARDED_BY(mu_);
};

// The open streams, and the ticker that sends each event to all of them.
class Streams : public grpc::CallbackGenericService {
 public:
  Streams(double rate, size_t object_bytes, size_t max_queue)
      : rate_(rate), max_queue_(max_queue), object_(SerializedObject(object_bytes)) {}

  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* context)
      override {
    if (context->method() != kWatchMethod) {
      return grpc::CallbackGenericService::CreateReactor(context);
    }
    auto* stream = new ProbeStream(this, max_queue_);
    absl::MutexLock lock(&mu_);
    open_.insert(stream);
    return stream;
  }

  void Remove(ProbeStream* stream) {
    absl::MutexLock lock(&mu_);
    open_.erase(stream);
  }

  // Sends events on a fixed schedule until *stop.
  void Tick(const std::atomic<bool>* stop) {
    const auto start = std::chrono::steady_clock::now();
    const auto interval = std::chrono::nanoseconds(static_cast<int64_t>(1e9 / rate_));
    for (uint64_t i = 0; !stop->load(); ++i) {
      std::this_thread::sleep_until(start + interval * i);
      const grpc::Slice header = SerializedHeader(SteadyNanos());
      absl::MutexLock lock(&mu_);
      for (ProbeStream* stream : open_) stream->Send(header, object_);
    }
  }

 private:
  const double rate_;
  const size_t max_queue_;
  const grpc::Slice object_;
  absl::Mutex mu_;
  std::unordered_set<ProbeStream*> open_ ABSL_GUARDED_BY(mu_);
};

ProbeStream::ProbeStream(Streams* streams, size_t max_queue)
    : streams_(streams), max_queue_(max_queue) {
  // Headers go out with the first message: a client sees the stream as
  // open only then, as with informerd before its first event.
  StartSendInitialMetadata();
}

void ProbeStream::Send(const grpc::Slice& header, const grpc::Slice& object) {
  absl::MutexLock lock(&mu_);
  if (ending_) return;
  if (pending_.size() >= max_queue_) {
    FinishLocked(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "watcher fell behind"));
    return;
  }
  const grpc::Slice parts[] = {header, object};
  pending_.emplace_back(parts, 2);
  if (!writing_) WriteNextLocked();
}

void ProbeStream::WriteNextLocked() {
  in_flight_ = std::move(pending_.front());
  pending_.pop_front();
  writing_ = true;
  StartWrite(&in_flight_);
}

void ProbeStream::FinishLocked(grpc::Status status) {
  if (!ending_) {
    ending_ = true;
    end_status_ = std::move(status);
  }
  if (!writing_ && !finished_) {
    finished_ = true;
    Finish(end_status_);
  }
}

void ProbeStream::OnWriteDone(bool ok) {
  absl::MutexLock lock(&mu_);
  writing_ = false;
  if (!ok) FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "write failed"));
  if (ending_) {
    FinishLocked(end_status_);
  } else if (!pending_.empty()) {
    WriteNextLocked();
  }
}

void ProbeStream::OnCancel() {
  absl::MutexLock lock(&mu_);
  FinishLocked(grpc::Status::CANCELLED);
}

void ProbeStream::OnDone() {
  streams_->Remove(this);
  delete this;
}

std::atomic<bool> stopping{false};

}  // namespace
}  // namespace informerd::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  // As informerd's main does (server/main.cc): Debian's Abseil keeps
  // absl::Mutex deadlock detection on, which the anchor must not pay
  // where informerd does not.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  using informerd::bench::stopping;
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGTERM, [](int) { stopping.store(true); });
  std::signal(SIGINT, [](int) { stopping.store(true); });
  informerd::bench::Streams streams(absl::GetFlag(FLAGS_rate), absl::GetFlag(FLAGS_object_bytes),
                                    absl::GetFlag(FLAGS_max_queue));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(absl::GetFlag(FLAGS_address), grpc::InsecureServerCredentials());
  builder.RegisterCallbackGenericService(&streams);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    std::fprintf(stderr, "grpc_probe: cannot listen on %s\n",
                 absl::GetFlag(FLAGS_address).c_str());
    return 1;
  }
  std::fprintf(stderr, "grpc_probe: %s, %.1f events/s\n", absl::GetFlag(FLAGS_address).c_str(),
               absl::GetFlag(FLAGS_rate));
  streams.Tick(&stopping);
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  return 0;
}
