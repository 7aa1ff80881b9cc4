#include "server/admin/http_server.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <list>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace informerd::admin {
namespace {

constexpr size_t kReadChunk = 4096;
// Accepts per loop turn, so a flood of connections cannot starve the
// connections already open.
constexpr int kAcceptsPerTurn = 64;

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "";
  }
}

// What to answer one request head, and whether the connection goes on.
struct Parsed {
  int status = 200;
  std::string error;  // the body of an error answer
  std::string method;
  std::string path;
  bool keep_alive = true;
};

Parsed ParseHead(absl::string_view head, size_t max_headers) {
  Parsed parsed;
  auto fail = [&](int status, std::string error) {
    parsed.status = status;
    parsed.error = std::move(error);
    parsed.keep_alive = false;
    return parsed;
  };
  size_t line_end = head.find("\r\n");
  const absl::string_view request_line = head.substr(0, line_end);
  head.remove_prefix(line_end == absl::string_view::npos ? head.size() : line_end + 2);
  const size_t first_space = request_line.find(' ');
  const size_t last_space = request_line.rfind(' ');
  if (first_space == absl::string_view::npos || first_space == last_space) {
    return fail(400, "request line: not METHOD TARGET VERSION\n");
  }
  parsed.method = std::string(request_line.substr(0, first_space));
  const absl::string_view target =
      request_line.substr(first_space + 1, last_space - first_space - 1);
  const absl::string_view version = request_line.substr(last_space + 1);
  if (version == "HTTP/1.0") {
    parsed.keep_alive = false;
  } else if (version != "HTTP/1.1") {
    return fail(400, "request line: the version is not HTTP/1.0 or HTTP/1.1\n");
  }
  if (target.empty() || target.front() != '/') {
    return fail(400, "request line: the target is not a path\n");
  }
  parsed.path = std::string(target.substr(0, target.find('?')));
  size_t headers = 0;
  while (!head.empty()) {
    line_end = head.find("\r\n");
    const absl::string_view line = head.substr(0, line_end);
    head.remove_prefix(line_end == absl::string_view::npos ? head.size() : line_end + 2);
    if (++headers > max_headers) {
      return fail(431, absl::StrCat("headers: more than ", max_headers, "\n"));
    }
    const size_t colon = line.find(':');
    if (colon == 0 || colon == absl::string_view::npos) {
      return fail(400, "headers: a line is not NAME: VALUE\n");
    }
    const absl::string_view name = line.substr(0, colon);
    const absl::string_view value = absl::StripAsciiWhitespace(line.substr(colon + 1));
    if (absl::EqualsIgnoreCase(name, "Transfer-Encoding") ||
        (absl::EqualsIgnoreCase(name, "Content-Length") && value != "0")) {
      // Refused before a byte of it is read: nothing here takes a body.
      return fail(413, "body: no endpoint takes one\n");
    }
    if (absl::EqualsIgnoreCase(name, "Connection")) {
      if (absl::EqualsIgnoreCase(value, "close")) parsed.keep_alive = false;
      if (absl::EqualsIgnoreCase(value, "keep-alive")) parsed.keep_alive = true;
    }
  }
  if (parsed.method != "GET" && parsed.method != "HEAD") {
    return fail(405, absl::StrCat("method: ", parsed.method, " is not GET or HEAD\n"));
  }
  return parsed;
}

std::string Render(const HttpResponse& response, bool head_only, bool keep_alive) {
  std::string out = absl::StrCat("HTTP/1.1 ", response.status, " ", Reason(response.status),
                                 "\r\nContent-Type: ", response.content_type,
                                 "\r\nContent-Length: ", response.body.size(), "\r\n");
  if (response.status == 405) out += "Allow: GET, HEAD\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
  if (!head_only) out += response.body;
  return out;
}

}  // namespace

class HttpServer::Loop {
 public:
  Loop(const HttpLimits& limits, const std::map<std::string, Handlers>& handlers, int listener,
       SSL_CTX* context, int wake_read, int wake_write)
      : limits_(limits),
        handlers_(handlers),
        listener_(listener),
        context_(context),
        wake_read_(wake_read),
        wake_write_(wake_write) {}

  ~Loop() {
    for (Connection& connection : connections_) Close(connection);
    close(listener_);
    close(wake_read_);
    close(wake_write_);
    if (context_ != nullptr) SSL_CTX_free(context_);
  }

  void Stop() {
    stopping_.store(true);
    const char byte = 0;
    // A full pipe already holds a wake-up.
    (void)!write(wake_write_, &byte, 1);
  }

  void Run() {
    std::vector<pollfd> fds;
    std::vector<Connection*> polled;
    while (!stopping_.load()) {
      fds.clear();
      polled.clear();
      fds.push_back({wake_read_, POLLIN, 0});
      // Out of descriptors with none to evict, the listener stays readable:
      // it is left alone for a moment rather than spun on.
      const bool accepting = absl::Now() >= accept_paused_until_;
      fds.push_back({listener_, static_cast<short>(accepting ? POLLIN : 0), 0});
      absl::Time next_deadline =
          absl::Now() + (accepting ? absl::Seconds(1) : absl::Milliseconds(100));
      // A connection with a pipelined request buffered has its turn now.
      bool buffered = false;
      for (Connection& connection : connections_) {
        buffered = buffered || connection.buffered;
        const bool write = connection.want_write || connection.out_offset < connection.out.size();
        fds.push_back({connection.fd, static_cast<short>(write ? POLLOUT : POLLIN), 0});
        polled.push_back(&connection);
        next_deadline = std::min(next_deadline, connection.deadline);
      }
      const int64_t wait_ms =
          buffered ? 0
                   : std::max<int64_t>(0, absl::ToInt64Milliseconds(absl::Ceil(
                                              next_deadline - absl::Now(), absl::Milliseconds(1))));
      if (poll(fds.data(), fds.size(), static_cast<int>(wait_ms)) < 0 && errno != EINTR) break;
      if (fds[0].revents != 0) {
        char drain[64];
        while (read(wake_read_, drain, sizeof drain) > 0) {
        }
      }
      if (stopping_.load()) break;
      for (size_t i = 0; i < polled.size(); ++i) {
        if ((fds[i + 2].revents != 0 || polled[i]->buffered) && polled[i]->fd >= 0) {
          Progress(*polled[i]);
        }
      }
      if (fds[1].revents != 0) Accept();
      const absl::Time now = absl::Now();
      for (Connection& connection : connections_) {
        if (connection.fd >= 0 && now >= connection.deadline) Close(connection);
      }
      connections_.remove_if([](const Connection& connection) { return connection.fd < 0; });
    }
  }

 private:
  struct Connection {
    int fd = -1;
    SSL* ssl = nullptr;
    bool handshaking = false;
    // The TLS layer needs the socket writable to go on.
    bool want_write = false;
    // Bytes of the request being read (and any pipelined after it).
    std::string in;
    std::string out;
    size_t out_offset = 0;
    bool close_after_write = false;
    // A whole request head waits in `in`, for the next turn.
    bool buffered = false;
    // The peer's address bytes, for the per-address limit.
    std::string peer;
    // When the current phase (handshake, request, response, idle) began, and
    // when the connection is closed if it has not ended.
    absl::Time since;
    absl::Time deadline;
  };

  void Accept() {
    // Connections accepted from here on have not had a turn to be read:
    // they are evicted only when no other can be, so that a burst of new
    // connections closes its own first, not a prober's that came before it.
    const absl::Time turn = absl::Now();
    for (int i = 0; i < kAcceptsPerTurn; ++i) {
      sockaddr_storage address{};
      socklen_t address_size = sizeof address;
      auto accept_one = [&] {
        address_size = sizeof address;
        return accept4(listener_, reinterpret_cast<sockaddr*>(&address), &address_size,
                       SOCK_NONBLOCK | SOCK_CLOEXEC);
      };
      int fd = accept_one();
      if (fd < 0 && (errno == EMFILE || errno == ENFILE) && EvictOne(nullptr, turn)) {
        fd = accept_one();
      }
      if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE) {
          accept_paused_until_ = absl::Now() + absl::Milliseconds(100);
        }
        return;
      }
      std::string peer = PeerKey(address);
      if (per_peer_[peer] >= limits_.max_connections_per_peer) EvictOne(&peer, turn);
      if (open_ >= limits_.max_connections) EvictOne(nullptr, turn);
      Connection& connection = connections_.emplace_back();
      ++open_;
      ++per_peer_[peer];
      connection.fd = fd;
      connection.peer = std::move(peer);
      connection.since = absl::Now();
      connection.deadline = connection.since + limits_.request_timeout;
      if (context_ != nullptr) {
        connection.ssl = SSL_new(context_);
        if (connection.ssl == nullptr || SSL_set_fd(connection.ssl, fd) != 1) {
          Close(connection);
          continue;
        }
        SSL_set_mode(connection.ssl,
                     SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
        connection.handshaking = true;
      }
    }
  }

  // The address part of a peer's socket address (its port left out).
  static std::string PeerKey(const sockaddr_storage& address) {
    if (address.ss_family == AF_INET6) {
      const auto& in6 = reinterpret_cast<const sockaddr_in6&>(address);
      return std::string(reinterpret_cast<const char*>(&in6.sin6_addr), sizeof in6.sin6_addr);
    }
    const auto& in4 = reinterpret_cast<const sockaddr_in&>(address);
    return std::string(reinterpret_cast<const char*>(&in4.sin_addr), sizeof in4.sin_addr);
  }

  // Closes the connection (of `peer`'s, when given) that has been in its
  // phase longest (one whose request trickles in, or an idle keep-alive
  // one), preferring those in it since before `turn`: a prober sends its
  // request at once and is answered within a turn, so it is never the
  // oldest for long. False if there is none.
  bool EvictOne(const std::string* peer, absl::Time turn) {
    Connection* oldest = nullptr;
    auto before = [turn](const Connection& a, const Connection& b) {
      const bool a_fresh = a.since >= turn;
      const bool b_fresh = b.since >= turn;
      return a_fresh != b_fresh ? b_fresh : a.since < b.since;
    };
    for (Connection& connection : connections_) {
      if (connection.fd >= 0 && (peer == nullptr || connection.peer == *peer) &&
          (oldest == nullptr || before(connection, *oldest))) {
        oldest = &connection;
      }
    }
    if (oldest == nullptr) return false;
    Close(*oldest);
    return true;
  }

  void Close(Connection& connection) {
    if (connection.fd < 0) return;
    if (connection.ssl != nullptr) SSL_free(connection.ssl);
    connection.ssl = nullptr;
    close(connection.fd);
    connection.fd = -1;
    std::string().swap(connection.in);
    std::string().swap(connection.out);
    connection.buffered = false;
    --open_;
    auto peer = per_peer_.find(connection.peer);
    if (peer != per_peer_.end() && --peer->second == 0) per_peer_.erase(peer);
  }

  // Whether a TLS call that returned `result` may go on later (its wish
  // for the socket noted); false when the connection is done.
  bool TlsMayRetry(Connection& connection, int result) {
    const int error = SSL_get_error(connection.ssl, result);
    ERR_clear_error();
    connection.want_write = error == SSL_ERROR_WANT_WRITE;
    return error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE;
  }

  void Progress(Connection& connection) {
    connection.want_write = false;
    if (connection.handshaking) {
      const int result = SSL_accept(connection.ssl);
      if (result != 1) {
        if (!TlsMayRetry(connection, result)) Close(connection);
        return;
      }
      connection.handshaking = false;
    }
    if (connection.out_offset < connection.out.size()) {
      if (!Write(connection)) return;
    }
    if (!Read(connection)) return;
    Answer(connection);
  }

  // Writes what the response has left; false unless it is all written and
  // the connection goes on.
  bool Write(Connection& connection) {
    while (connection.out_offset < connection.out.size()) {
      const char* data = connection.out.data() + connection.out_offset;
      const size_t size = connection.out.size() - connection.out_offset;
      ssize_t written;
      if (connection.ssl != nullptr) {
        const int result = SSL_write(connection.ssl, data, static_cast<int>(std::min<size_t>(size, 1 << 20)));
        if (result <= 0) {
          if (!TlsMayRetry(connection, result)) Close(connection);
          return false;
        }
        written = result;
      } else {
        written = send(connection.fd, data, size, MSG_NOSIGNAL);
        if (written < 0) {
          if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) Close(connection);
          return false;
        }
      }
      connection.out_offset += static_cast<size_t>(written);
    }
    std::string().swap(connection.out);
    connection.out_offset = 0;
    if (connection.close_after_write) {
      Close(connection);
      return false;
    }
    // Idle until the next request's first byte.
    connection.since = absl::Now();
    connection.deadline = connection.since + limits_.idle_timeout;
    return true;
  }

  // Reads what has arrived, up to a little past the head limit; false when
  // the connection ended.
  bool Read(Connection& connection) {
    char buffer[kReadChunk];
    while (connection.in.size() <= limits_.max_head_bytes) {
      ssize_t got;
      if (connection.ssl != nullptr) {
        const int result = SSL_read(connection.ssl, buffer, sizeof buffer);
        if (result <= 0) {
          if (TlsMayRetry(connection, result)) return true;
          Close(connection);
          return false;
        }
        got = result;
      } else {
        got = recv(connection.fd, buffer, sizeof buffer, 0);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
        if (got <= 0) {
          Close(connection);
          return false;
        }
      }
      if (connection.in.empty() && connection.out.empty()) {
        // A request begins: it has request_timeout to arrive whole.
        connection.since = absl::Now();
        connection.deadline = connection.since + limits_.request_timeout;
      }
      connection.in.append(buffer, static_cast<size_t>(got));
    }
    return true;
  }

  // Answers the first whole request head buffered; one pipelined behind it
  // waits for the connection's next turn.
  void Answer(Connection& connection) {
    connection.buffered = false;
    if (connection.fd >= 0 && connection.out.empty()) {
      const size_t end = connection.in.find("\r\n\r\n");
      if (end == std::string::npos || end > limits_.max_head_bytes) {
        if (connection.in.size() > limits_.max_head_bytes) {
          Respond(connection, HttpResponse{431, "text/plain",
                                           absl::StrCat("request head: more than ",
                                                        limits_.max_head_bytes, " bytes\n")},
                  false, false);
        }
        return;
      }
      const Parsed parsed =
          ParseHead(absl::string_view(connection.in).substr(0, end), limits_.max_headers);
      connection.in.erase(0, end + 4);
      if (parsed.status != 200) {
        Respond(connection, HttpResponse{parsed.status, "text/plain", parsed.error}, false, false);
        return;
      }
      auto handler = handlers_.find(parsed.path);
      HttpResponse response = handler == handlers_.end()
                                  ? HttpResponse{404, "text/plain", "not found\n"}
                                  : parsed.method == "HEAD" && handler->second.head
                                        ? handler->second.head()
                                        : handler->second.get();
      if (!Respond(connection, response, parsed.method == "HEAD", parsed.keep_alive)) return;
      if (!connection.in.empty()) {
        // The next request's bytes came with this one.
        connection.since = absl::Now();
        connection.deadline = connection.since + limits_.request_timeout;
        connection.buffered = connection.in.find("\r\n\r\n") != std::string::npos ||
                              connection.in.size() > limits_.max_head_bytes;
      }
    }
  }

  // Queues and writes the response; false unless it is written and the
  // connection goes on.
  bool Respond(Connection& connection, const HttpResponse& response, bool head_only,
               bool keep_alive) {
    connection.out = Render(response, head_only, keep_alive);
    connection.out_offset = 0;
    connection.close_after_write = !keep_alive;
    connection.since = absl::Now();
    connection.deadline = connection.since + limits_.request_timeout;
    return Write(connection);
  }

  const HttpLimits limits_;
  const std::map<std::string, Handlers>& handlers_;
  const int listener_;
  SSL_CTX* const context_;
  const int wake_read_;
  const int wake_write_;
  std::atomic<bool> stopping_{false};
  // A list: Connection addresses stay put while the loop holds them.
  std::list<Connection> connections_;
  size_t open_ = 0;
  // Open connections by PeerKey.
  std::map<std::string, size_t> per_peer_;
  absl::Time accept_paused_until_ = absl::InfinitePast();
};

HttpServer::HttpServer(HttpLimits limits) : limits_(limits) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Handle(const std::string& path, Handler handler, Handler head) {
  handlers_[path] = Handlers{std::move(handler), std::move(head)};
}

absl::Status HttpServer::Start(const std::string& address,
                               tls::ReloadingCertificate* certificate) {
  const size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--http-address: \"", address, "\" is not HOST:PORT"));
  }
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--http-address: cannot resolve the host of \"", address, "\""));
  }
  int listener = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int yes = 1;
  const bool bound = listener >= 0 &&
                     setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes) == 0 &&
                     bind(listener, found->ai_addr, found->ai_addrlen) == 0 &&
                     listen(listener, SOMAXCONN) == 0;
  freeaddrinfo(found);
  if (!bound) {
    const std::string reason = std::strerror(errno);
    if (listener >= 0) close(listener);
    return absl::UnavailableError(
        absl::StrCat("--http-address: cannot listen on ", address, ": ", reason));
  }
  sockaddr_storage local{};
  socklen_t local_size = sizeof local;
  getsockname(listener, reinterpret_cast<sockaddr*>(&local), &local_size);
  port_ = ntohs(local.ss_family == AF_INET6
                    ? reinterpret_cast<sockaddr_in6*>(&local)->sin6_port
                    : reinterpret_cast<sockaddr_in*>(&local)->sin_port);

  SSL_CTX* context = nullptr;
  if (certificate != nullptr) {
    context = SSL_CTX_new(TLS_server_method());
    absl::Status configured = context == nullptr
                                  ? absl::InternalError("--http-tls: cannot create a TLS context")
                                  : certificate->Configure(context);
    if (!configured.ok()) {
      if (context != nullptr) SSL_CTX_free(context);
      close(listener);
      return configured;
    }
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  }
  int wake[2];
  if (pipe2(wake, O_NONBLOCK | O_CLOEXEC) != 0) {
    if (context != nullptr) SSL_CTX_free(context);
    close(listener);
    return absl::InternalError("--http-address: cannot create a pipe");
  }
  // A TLS write to a peer that has gone raises SIGPIPE (plain writes pass
  // MSG_NOSIGNAL); main ignores it too, this covers tests and embedders.
  std::signal(SIGPIPE, SIG_IGN);
  loop_ = std::make_unique<Loop>(limits_, handlers_, listener, context, wake[0], wake[1]);
  thread_ = std::thread([this] { loop_->Run(); });
  return absl::OkStatus();
}

void HttpServer::Stop() {
  if (loop_ == nullptr) return;
  loop_->Stop();
  if (thread_.joinable()) thread_.join();
  loop_.reset();
}

}  // namespace informerd::admin
