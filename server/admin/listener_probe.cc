#include "server/admin/listener_probe.h"

#include <netdb.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace informerd::admin {
namespace {

// What a wildcard listen address is probed on.
std::string ProbeHost(const std::string& address) {
  const size_t colon = address.rfind(':');
  std::string host = colon == std::string::npos ? address : address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty() || host == "0.0.0.0") return "127.0.0.1";
  if (host == "::") return "::1";
  return host;
}

// HTTP/2's client connection preface and an empty SETTINGS frame.
std::string Http2Hello() {
  std::string hello = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  hello.append("\x00\x00\x00\x04\x00\x00\x00\x00\x00", 9);
  return hello;
}

// A TLS ClientHello as OpenSSL writes it, or "" if it cannot.
std::string TlsHello() {
  SSL_CTX* context = SSL_CTX_new(TLS_client_method());
  if (context == nullptr) return "";
  SSL* ssl = SSL_new(context);
  std::string hello;
  if (ssl != nullptr) {
    BIO* in = BIO_new(BIO_s_mem());
    BIO* out = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl, in, out);  // owned by ssl from here
    SSL_set_connect_state(ssl);
    SSL_do_handshake(ssl);  // wants to read: the hello is written
    char buffer[4096];
    int got;
    while ((got = BIO_read(out, buffer, sizeof buffer)) > 0) hello.append(buffer, got);
    SSL_free(ssl);
  }
  SSL_CTX_free(context);
  return hello;
}

}  // namespace

ListenerProbe::ListenerProbe(std::string name, std::string address, int port, bool tls,
                             ListenerProbeOptions options)
    : name_(std::move(name)),
      address_(std::move(address)),
      host_(ProbeHost(address_)),
      port_(port),
      tls_(tls),
      options_(options) {}

ListenerProbe::~ListenerProbe() { Stop(); }

void ListenerProbe::Start() {
  thread_ = std::thread([this] { Run(); });
}

void ListenerProbe::Stop() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  if (thread_.joinable()) thread_.join();
}

std::optional<std::string> ListenerProbe::Problem() const {
  absl::MutexLock lock(&mu_);
  if (consecutive_failures_ < options_.failures) return std::nullopt;
  return absl::StrCat(name_, " listener on ", address_, " (port ", port_, "): ",
                      consecutive_failures_, " new connections in a row got no answer (last: ",
                      last_error_, ")");
}

void ListenerProbe::Run() {
  // The period between probes, not a wait for anything.
  while (!stop_.WaitForNotificationWithTimeout(options_.interval)) {
    const absl::Status probed = ProbeOnce(host_, port_, tls_, options_.timeout);
    absl::MutexLock lock(&mu_);
    if (probed.ok()) {
      consecutive_failures_ = 0;
    } else {
      ++consecutive_failures_;
      last_error_ = std::string(probed.message());
    }
  }
}

absl::Status ListenerProbe::ProbeOnce(const std::string& host, int port, bool tls,
                                      absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot resolve ", host));
  }
  const int fd = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    freeaddrinfo(found);
    return absl::UnavailableError(absl::StrCat("socket: ", std::strerror(errno)));
  }
  const int connected = connect(fd, found->ai_addr, found->ai_addrlen);
  freeaddrinfo(found);
  auto wait = [&](short events) {
    const int64_t left = absl::ToInt64Milliseconds(deadline - absl::Now());
    pollfd polled{fd, events, 0};
    return left > 0 && poll(&polled, 1, static_cast<int>(left)) == 1;
  };
  absl::Status result = absl::OkStatus();
  if (connected != 0 && errno != EINPROGRESS) {
    result = absl::UnavailableError(absl::StrCat("connect: ", std::strerror(errno)));
  } else if (connected != 0 && !wait(POLLOUT)) {
    result = absl::DeadlineExceededError("connect did not complete");
  } else {
    int error = 0;
    socklen_t size = sizeof error;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
    const std::string hello = tls ? TlsHello() : Http2Hello();
    if (error != 0) {
      result = absl::UnavailableError(absl::StrCat("connect: ", std::strerror(error)));
    } else if (send(fd, hello.data(), hello.size(), MSG_NOSIGNAL) !=
               static_cast<ssize_t>(hello.size())) {
      result = absl::UnavailableError("the first bytes could not be sent");
    } else if (!wait(POLLIN)) {  // bytes, an end or a reset: each only after an accept
      result = absl::DeadlineExceededError(
          absl::StrCat("connected, but nothing answered within ", absl::FormatDuration(timeout)));
    }
  }
  close(fd);
  return result;
}

}  // namespace informerd::admin
