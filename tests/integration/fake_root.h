// FakeRoot: a scripted root informerd for tier tests that inject faults (a
// broken stream, OUT_OF_RANGE, a relist batch, a lie). Each Watch plays the
// next Script and records its request; ListResources serves ConfigMaps.
// The happy path against a real root is tier_test.cc.
//
// Thread safety: thread-safe.
#ifndef INFORMERD_TESTS_INTEGRATION_FAKE_ROOT_H_
#define INFORMERD_TESTS_INTEGRATION_FAKE_ROOT_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "informerd/v1/informerd.grpc.pb.h"

namespace informerd::testing {

// A ConfigMap event in namespace "ns".
v1::WatchEvent Event(v1::WatchEvent::Type type, const std::string& name,
                     const std::string& object_version, const std::string& event_version,
                     bool final_state_unknown = false);
v1::WatchEvent Added(const std::string& name, const std::string& version);
v1::WatchEvent Bookmark(const std::string& version, bool initial_events_end = false);

// One scripted Watch: the events to send, then how the call ends.
struct Script {
  std::vector<v1::WatchEvent> events;
  grpc::Status end;
  // Instead of ending: hold the stream open until the client cancels it.
  bool hold = false;
  // After the events: ADDED objects of 64 KiB, never the initial-events-end
  // bookmark, until the client cancels or this many bytes are sent (a cap
  // for the fake's sake, far past any bound a test sets), then `end`.
  size_t endless_bytes = 0;
};

// The JSON of an endless list's object is this size and some.
inline constexpr size_t kEndlessObjectBytes = 64 << 10;

// The n-th object of an endless list, at version n + 1.
v1::WatchEvent EndlessItem(size_t n);

class FakeRoot final : public v1::Cache::Service {
 public:
  // Listens on 127.0.0.1, a free port.
  FakeRoot();
  ~FakeRoot() override;

  // The script of the next Watch not scripted yet. Without a script left, a
  // Watch is held open until cancelled.
  void Add(Script script);

  int port() const { return port_; }
  std::shared_ptr<grpc::Channel> Channel() const;

  // The requests received so far, waiting (up to 10 s) until there are at
  // least `n`.
  std::vector<v1::WatchRequest> Requests(size_t n);
  // Each Watch's authorization metadata ("" without).
  std::vector<std::string> Authorizations();

  grpc::Status ListResources(grpc::ServerContext* context,
                             const v1::ListResourcesRequest* request,
                             v1::ListResourcesResponse* response) override;
  grpc::Status Watch(grpc::ServerContext* context, const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override;

 private:
  absl::Mutex mu_;
  std::deque<Script> scripts_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::WatchRequest> requests_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> authorizations_ ABSL_GUARDED_BY(mu_);
  absl::Notification closing_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace informerd::testing

#endif  // INFORMERD_TESTS_INTEGRATION_FAKE_ROOT_H_
