// WatchStream: one informerd Watch stream on gRPC's callback API, the
// watcher of the fan-out and reconnect benchmarks. It reads until the
// stream ends and hands each event to the subclass's OnEvent.
//
// Thread safety: OnEvent runs on gRPC's threads, one call at a time; Cancel
// and AwaitDone may be called from any thread. Ownership: the object must
// outlive its stream (AwaitDone before destroying it).
#ifndef INFORMERD_BENCH_WATCH_STREAM_H_
#define INFORMERD_BENCH_WATCH_STREAM_H_

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/synchronization/mutex.h"
#include "informerd/v1/informerd.grpc.pb.h"

namespace informerd::bench {

class WatchStream : public grpc::ClientReadReactor<v1::WatchEvent> {
 public:
  WatchStream(const WatchStream&) = delete;
  WatchStream& operator=(const WatchStream&) = delete;

  void Cancel() { context_.TryCancel(); }
  // Returns once the stream has ended (cancelled, or ended by the server).
  void AwaitDone();
  // How the stream ended; OK while it has not.
  grpc::Status status();

 protected:
  WatchStream() = default;

  // Starts the stream. REQUIRES: called last in the subclass's constructor,
  // since OnEvent may run at once.
  void Start(v1::Cache::Stub* stub, const v1::WatchRequest& request);

  virtual void OnEvent(const v1::WatchEvent& event) = 0;

 private:
  void OnReadDone(bool ok) final;
  void OnDone(const grpc::Status& status) final;

  grpc::ClientContext context_;
  v1::WatchEvent event_;
  absl::Mutex mu_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
};

// A stub on a TCP connection of its own (channels with equal arguments
// otherwise share one), accepting messages of any size.
std::unique_ptr<v1::Cache::Stub> NewStubOnOwnConnection(const std::string& address);

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_WATCH_STREAM_H_
