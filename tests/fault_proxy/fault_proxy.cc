#include "tests/fault_proxy/fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace informerd::testing {
namespace {

int ConnectTo(const std::string& host, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, host.c_str(), &address.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void Reset(int fd) {
  linger hard{1, 0};  // RST instead of FIN: a cut, not a clean close.
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
  shutdown(fd, SHUT_RDWR);
}

}  // namespace

FaultProxy::FaultProxy(std::string target_host, int target_port)
    : target_host_(std::move(target_host)), target_port_(target_port) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(listen_fd_, 64) != 0) {
    std::perror("fault proxy: bind");
    std::abort();
  }
  socklen_t length = sizeof(address);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

FaultProxy::~FaultProxy() {
  stopping_ = true;
  shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  close(listen_fd_);
  Cut();
  std::vector<std::thread> pumps;
  {
    absl::MutexLock lock(&mu_);
    pumps.swap(pumps_);
  }
  for (std::thread& pump : pumps) pump.join();
}

void FaultProxy::AcceptLoop() {
  while (!stopping_) {
    int client = accept(listen_fd_, nullptr, nullptr);
    if (client < 0) continue;
    if (stopping_ || blocked_) {
      Reset(client);
      close(client);
      continue;
    }
    int upstream = ConnectTo(target_host_, target_port_);
    if (upstream < 0) {
      Reset(client);
      close(client);
      continue;
    }
    ++connections_;
    absl::MutexLock lock(&mu_);
    open_fds_.push_back(client);
    open_fds_.push_back(upstream);
    pumps_.emplace_back([this, client, upstream] { Pump(client, upstream); });
  }
}

void FaultProxy::Pump(int a, int b) {
  char buffer[64 * 1024];
  pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
  while (true) {
    if (poll(fds, 2, 1000) < 0) break;
    if (stopping_) break;
    bool done = false;
    for (int i = 0; i < 2 && !done; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n <= 0) {
        done = true;
        break;
      }
      ssize_t written = 0;
      while (written < n) {
        ssize_t w = write(fds[1 - i].fd, buffer + written, static_cast<size_t>(n - written));
        if (w <= 0) {
          done = true;
          break;
        }
        written += w;
      }
    }
    if (done) break;
  }
  absl::MutexLock lock(&mu_);
  for (int fd : {a, b}) {
    auto it = std::find(open_fds_.begin(), open_fds_.end(), fd);
    if (it != open_fds_.end()) {
      open_fds_.erase(it);
      Reset(fd);
      close(fd);
    }
  }
}

void FaultProxy::Cut() {
  absl::MutexLock lock(&mu_);
  // Shutting down wakes the pumps, which close and forget the descriptors.
  for (int fd : open_fds_) Reset(fd);
}

void FaultProxy::SetBlocked(bool blocked) { blocked_ = blocked; }

}  // namespace informerd::testing
