// FaultProxy: a loopback TCP forwarder between informerd and the
// kube-apiserver that tests can cut, so upstream failures happen on cue.
//
// Bytes pass through untouched (TLS included). Cut() resets every open
// connection; while blocked, new connections are accepted and closed at
// once, as a dead server behind a load balancer looks.
//
// Thread safety: all methods are thread-safe.
#ifndef INFORMERD_TESTS_FAULT_PROXY_FAULT_PROXY_H_
#define INFORMERD_TESTS_FAULT_PROXY_FAULT_PROXY_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace informerd::testing {

class FaultProxy {
 public:
  // Forwards 127.0.0.1:<port()> to target_host:target_port.
  FaultProxy(std::string target_host, int target_port);
  ~FaultProxy();

  int port() const { return port_; }

  // Resets every open connection.
  void Cut();
  // While blocked, connections are refused (accepted and closed).
  void SetBlocked(bool blocked);
  // Connections accepted so far, for assertions.
  int connections() const { return connections_.load(); }

 private:
  void AcceptLoop();
  void Pump(int from, int to);

  const std::string target_host_;
  const int target_port_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> blocked_{false};
  std::atomic<int> connections_{0};
  std::thread acceptor_;

  absl::Mutex mu_;
  std::vector<int> open_fds_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> pumps_ ABSL_GUARDED_BY(mu_);
};

}  // namespace informerd::testing

#endif  // INFORMERD_TESTS_FAULT_PROXY_FAULT_PROXY_H_
