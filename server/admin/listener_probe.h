// ListenerProbe: whether a TCP listener of this process still accepts new
// connections, seen from outside as a new client sees it.
//
// gRPC 1.51's TCP server stops accepting for good after an accept error
// such as EMFILE (grpc/grpc#20418), while the kernel still completes every
// new connection into the listen backlog: a connection succeeds and then
// hears nothing. So the probe opens a new connection every `interval`,
// sends the first bytes a client sends (HTTP/2's preface and SETTINGS, or a
// TLS ClientHello), and counts the listener alive when any byte comes back
// within `timeout`: a SETTINGS frame, a ServerHello, or an alert all mean a
// server accepted it. No token, certificate or request reaches the server.
//
// Thread safety: Start and Stop from one thread; Problem from any thread.
#ifndef INFORMERD_SERVER_ADMIN_LISTENER_PROBE_H_
#define INFORMERD_SERVER_ADMIN_LISTENER_PROBE_H_

#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace informerd::admin {

struct ListenerProbeOptions {
  absl::Duration interval = absl::Seconds(5);
  absl::Duration timeout = absl::Seconds(2);
  // Consecutive unanswered probes before the listener counts as stuck.
  int failures = 3;
};

class ListenerProbe {
 public:
  // `name` ("gRPC") and `address` ("host:port", as the listener was given:
  // a wildcard host is probed on loopback) name the listener in Problem.
  ListenerProbe(std::string name, std::string address, int port, bool tls,
                ListenerProbeOptions options = {});
  // Stop().
  ~ListenerProbe();
  ListenerProbe(const ListenerProbe&) = delete;
  ListenerProbe& operator=(const ListenerProbe&) = delete;

  void Start();
  void Stop();

  // Why the listener counts as stuck ("gRPC listener on 0.0.0.0:50051
  // (port 50051): 3 new connections in a row got no answer within 2s"),
  // or nullopt while it answers.
  std::optional<std::string> Problem() const;

  // One probe of `host`:`port`: OK when a new connection got an answer
  // within `timeout`, else why not.
  static absl::Status ProbeOnce(const std::string& host, int port, bool tls,
                                absl::Duration timeout);

 private:
  void Run();

  const std::string name_;
  const std::string address_;
  const std::string host_;
  const int port_;
  const bool tls_;
  const ListenerProbeOptions options_;
  absl::Notification stop_;
  std::thread thread_;
  mutable absl::Mutex mu_;
  int consecutive_failures_ ABSL_GUARDED_BY(mu_) = 0;
  std::string last_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace informerd::admin

#endif  // INFORMERD_SERVER_ADMIN_LISTENER_PROBE_H_
