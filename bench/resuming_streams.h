// Watch streams that resume from given resourceVersions and record what
// they receive, for the benchmarks of streams cut and resumed (reconnect
// storm, restart): what each received, what it received again (replayed)
// and which writes it never received (missed).
//
// Thread safety: a ResumingStream's accessors may be called from any
// thread; a StreamSet belongs to one thread.
#ifndef INFORMERD_BENCH_RESUMING_STREAMS_H_
#define INFORMERD_BENCH_RESUMING_STREAMS_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/watch_stream.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "server/cache/resource_version.h"

namespace informerd::bench {

// One Watch stream from `from` (0: from now), recording what it receives.
class ResumingStream : public WatchStream {
 public:
  ResumingStream(v1::Cache::Stub* stub, const std::string& namespace_, uint64_t from)
      : from_(from) {
    v1::WatchRequest request;
    request.mutable_resource()->set_version("v1");
    request.mutable_resource()->set_resource("configmaps");
    request.set_namespace_(namespace_);
    if (from != 0) request.set_resource_version(std::to_string(from));
    Start(stub, request);
  }

  // True once an event at `version` or later arrived, false at `deadline`.
  bool AwaitVersion(uint64_t version, absl::Time deadline) {
    auto reached = [this, version]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return last_ >= version; };
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithDeadline(absl::Condition(&reached), deadline);
  }

  uint64_t from() const { return from_; }
  // The server could not resume it (its version is older than the server
  // and the apiserver hold): a client would have to list again.
  bool refused_as_too_old() { return status().error_code() == grpc::StatusCode::OUT_OF_RANGE; }
  uint64_t last() {
    absl::MutexLock lock(&mu_);
    return last_;
  }
  size_t replayed() {
    absl::MutexLock lock(&mu_);
    return replayed_;
  }
  // How many of `versions` (all > from) this stream never received.
  size_t Missing(const std::vector<uint64_t>& versions) {
    absl::MutexLock lock(&mu_);
    size_t missing = 0;
    for (uint64_t version : versions) {
      if (version > from_ && versions_.count(version) == 0) ++missing;
    }
    return missing;
  }

 private:
  void OnEvent(const v1::WatchEvent& event) override {
    if (event.type() == v1::WatchEvent::BOOKMARK) return;
    const uint64_t version = cache::ParseResourceVersion(event.resource_version()).value_or(0);
    absl::MutexLock lock(&mu_);
    if (event.type() == v1::WatchEvent::ADDED || (from_ != 0 && version <= from_)) {
      ++replayed_;
    }
    versions_.insert(version);
    last_ = std::max(last_, version);
  }

  const uint64_t from_;
  absl::Mutex mu_;
  uint64_t last_ ABSL_GUARDED_BY(mu_) = 0;
  size_t replayed_ ABSL_GUARDED_BY(mu_) = 0;
  std::unordered_set<uint64_t> versions_ ABSL_GUARDED_BY(mu_);
};

// Streams spread over connections of `per_connection` streams each; every
// call to Open makes new connections.
class StreamSet {
 public:
  StreamSet(std::string address, std::string namespace_, size_t per_connection)
      : address_(std::move(address)),
        namespace_(std::move(namespace_)),
        per_connection_(std::max<size_t>(1, per_connection)) {}
  ~StreamSet() { Close(); }

  // One stream per entry of `from`.
  void Open(const std::vector<uint64_t>& from) {
    for (size_t i = 0; i < from.size(); ++i) {
      if (i % per_connection_ == 0) stubs_.push_back(NewStubOnOwnConnection(address_));
      streams_.push_back(std::make_unique<ResumingStream>(stubs_.back().get(), namespace_, from[i]));
    }
  }

  // Cancels every stream, waits for them to end, and drops the connections.
  void Close() {
    for (auto& stream : streams_) stream->Cancel();
    for (auto& stream : streams_) stream->AwaitDone();
    streams_.clear();
    stubs_.clear();
  }

  std::vector<std::unique_ptr<ResumingStream>>& streams() { return streams_; }

 private:
  const std::string address_;
  const std::string namespace_;
  const size_t per_connection_;
  std::vector<std::unique_ptr<v1::Cache::Stub>> stubs_;
  std::vector<std::unique_ptr<ResumingStream>> streams_;
};

// True once every stream has seen `version`, false after `timeout`.
inline bool AwaitAll(StreamSet* set, uint64_t version, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  for (auto& stream : set->streams()) {
    if (!stream->AwaitVersion(version, deadline)) return false;
  }
  return true;
}

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_RESUMING_STREAMS_H_
