#include "server/kube/rest_client.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "httplib.h"

namespace informerd::kube {
namespace {

constexpr char kUserAgent[] = "informerd/0.1";

bool IsSuccess(int status) { return status >= 200 && status < 300; }

absl::Duration RetryAfter(const httplib::Response& response) {
  int seconds = 0;
  if (absl::SimpleAtoi(response.get_header_value("Retry-After"), &seconds) &&
      seconds > 0) {
    return absl::Seconds(seconds);
  }
  return absl::ZeroDuration();
}

template <typename Setter>
void SetTimeout(absl::Duration timeout, Setter setter) {
  const int64_t micros = absl::ToInt64Microseconds(timeout);
  setter(static_cast<time_t>(micros / 1000000),
         static_cast<time_t>(micros % 1000000));
}

// Parses every certificate in `pem`; an empty result means none was found.
std::vector<X509*> ParseCertificates(std::string_view pem) {
  std::vector<X509*> certs;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return certs;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    certs.push_back(cert);
  }
  BIO_free(bio);
  // Reading stops at an expected "no start line" error; do not leave it
  // queued for unrelated OpenSSL calls on this thread.
  ERR_clear_error();
  return certs;
}

EVP_PKEY* ParsePrivateKey(std::string_view pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return nullptr;
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  ERR_clear_error();
  return key;
}

absl::StatusOr<std::string> ReadTrimmed(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::UnauthenticatedError(absl::StrCat(
        "token file ", path, ": cannot read: ", std::strerror(errno)));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  return std::string(absl::StripAsciiWhitespace(contents.str()));
}

}  // namespace

// Parsed once so each request only assembles, not parses, its TLS context.
struct RestClient::Credentials {
  ~Credentials() {
    for (X509* cert : ca_certs) X509_free(cert);
    if (client_cert != nullptr) X509_free(client_cert);
    if (client_key != nullptr) EVP_PKEY_free(client_key);
  }

  std::vector<X509*> ca_certs;
  X509* client_cert = nullptr;
  EVP_PKEY* client_key = nullptr;
};

bool StreamCanceller::cancelled() const {
  absl::MutexLock lock(&mu_);
  return cancelled_;
}

bool StreamCanceller::Register(httplib::ClientImpl* client) {
  absl::MutexLock lock(&mu_);
  if (cancelled_) return false;
  in_flight_.push_back(client);
  return true;
}

void StreamCanceller::Unregister(httplib::ClientImpl* client) {
  absl::MutexLock lock(&mu_);
  in_flight_.erase(std::remove(in_flight_.begin(), in_flight_.end(), client),
                   in_flight_.end());
}

void StreamCanceller::Cancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  // stop() shuts the socket down, waking a blocked read. A request that has
  // not opened its socket yet is not reached by it, so repeat until every
  // stream has noticed and unregistered.
  while (!in_flight_.empty()) {
    for (httplib::ClientImpl* client : in_flight_) client->stop();
    mu_.AwaitWithTimeout(
        absl::Condition(
            +[](std::vector<httplib::ClientImpl*>* in_flight) {
              return in_flight->empty();
            },
            &in_flight_),
        absl::Milliseconds(20));
  }
}

absl::StatusOr<std::unique_ptr<RestClient>> RestClient::Create(
    const ClusterConfig& config, RestClientOptions options) {
  auto credentials = std::make_unique<Credentials>();
  if (!config.ca_pem.empty()) {
    credentials->ca_certs = ParseCertificates(config.ca_pem);
    if (credentials->ca_certs.empty()) {
      return absl::InvalidArgumentError(
          "cluster config: ca_pem: no PEM certificate found");
    }
  }
  if (!config.client_cert_pem.empty() || !config.client_key_pem.empty()) {
    std::vector<X509*> chain = ParseCertificates(config.client_cert_pem);
    if (chain.empty()) {
      return absl::InvalidArgumentError(
          "cluster config: client_cert_pem: no PEM certificate found");
    }
    credentials->client_cert = chain[0];
    for (size_t i = 1; i < chain.size(); ++i) X509_free(chain[i]);
    credentials->client_key = ParsePrivateKey(config.client_key_pem);
    if (credentials->client_key == nullptr) {
      return absl::InvalidArgumentError(
          "cluster config: client_key_pem: no PEM private key found");
    }
    if (X509_check_private_key(credentials->client_cert,
                               credentials->client_key) != 1) {
      ERR_clear_error();
      return absl::InvalidArgumentError(
          "cluster config: client_key_pem: does not match client_cert_pem");
    }
  }
  auto client = std::unique_ptr<RestClient>(
      new RestClient(config, options, std::move(credentials)));

  absl::string_view rest = config.server;
  if (absl::ConsumePrefix(&rest, "https://")) {
    client->tls_ = true;
  } else if (absl::ConsumePrefix(&rest, "http://")) {
    client->tls_ = false;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster config: server: not an http(s) URL: \"", config.server, "\""));
  }
  const size_t path_start = rest.find('/');
  if (path_start != absl::string_view::npos) {
    client->base_path_ = std::string(rest.substr(path_start));
    while (!client->base_path_.empty() && client->base_path_.back() == '/') {
      client->base_path_.pop_back();
    }
    rest = rest.substr(0, path_start);
  }
  absl::string_view port_text;
  if (absl::ConsumePrefix(&rest, "[")) {  // [IPv6]:port
    const size_t close = rest.find(']');
    if (close == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cluster config: server: unterminated IPv6 address in \"",
          config.server, "\""));
    }
    client->host_ = std::string(rest.substr(0, close));
    rest.remove_prefix(close + 1);
    if (absl::ConsumePrefix(&rest, ":")) port_text = rest;
  } else {
    const size_t colon = rest.rfind(':');
    client->host_ = std::string(rest.substr(0, colon));
    if (colon != absl::string_view::npos) port_text = rest.substr(colon + 1);
  }
  if (client->host_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster config: server: no host in \"", config.server, "\""));
  }
  client->port_ = client->tls_ ? 443 : 80;
  if (!port_text.empty() &&
      (!absl::SimpleAtoi(port_text, &client->port_) || client->port_ <= 0 ||
       client->port_ > 65535)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster config: server: bad port in \"", config.server, "\""));
  }
  return client;
}

RestClient::RestClient(const ClusterConfig& config, RestClientOptions options,
                       std::unique_ptr<Credentials> credentials)
    : config_(config),
      options_(options),
      credentials_(std::move(credentials)) {}

RestClient::~RestClient() = default;

absl::StatusOr<std::string> RestClient::BearerToken() {
  if (config_.token_file.empty()) return config_.token;
  struct stat info;
  if (stat(config_.token_file.c_str(), &info) != 0) {
    return absl::UnauthenticatedError(
        absl::StrCat("token file ", config_.token_file,
                     ": cannot stat: ", std::strerror(errno)));
  }
  absl::MutexLock lock(&token_mu_);
  const bool changed = info.st_mtim.tv_sec != file_token_mtime_.tv_sec ||
                       info.st_mtim.tv_nsec != file_token_mtime_.tv_nsec;
  if (changed || file_token_.empty()) {
    absl::StatusOr<std::string> token = ReadTrimmed(config_.token_file);
    if (!token.ok()) return token.status();
    file_token_ = *std::move(token);
    file_token_mtime_ = info.st_mtim;
  }
  return file_token_;
}

absl::StatusOr<std::unique_ptr<httplib::ClientImpl>> RestClient::NewClient(
    absl::Duration read_timeout) {
  std::unique_ptr<httplib::ClientImpl> client;
  if (!tls_) {
    client = std::make_unique<httplib::ClientImpl>(host_, port_);
  } else {
    std::unique_ptr<httplib::SSLClient> ssl_client;
    if (credentials_->client_cert != nullptr) {
      ssl_client = std::make_unique<httplib::SSLClient>(
          host_, port_, credentials_->client_cert, credentials_->client_key);
    } else {
      ssl_client = std::make_unique<httplib::SSLClient>(host_, port_);
    }
    if (!ssl_client->is_valid()) {
      ERR_clear_error();
      return absl::InternalError("cannot set up a TLS context");
    }
    ssl_client->enable_server_certificate_verification(
        !config_.insecure_skip_tls_verify);
    if (!config_.insecure_skip_tls_verify &&
        !credentials_->ca_certs.empty()) {
      // The TLS context takes ownership of the store, so each client gets
      // its own; X509_STORE_add_cert only adds a reference to each CA.
      X509_STORE* store = X509_STORE_new();
      if (store == nullptr) return absl::InternalError("X509_STORE_new failed");
      for (X509* ca : credentials_->ca_certs) X509_STORE_add_cert(store, ca);
      ssl_client->set_ca_cert_store(store);
      // Without a CA path cpp-httplib also adds OpenSSL's default paths to
      // the store, trusting every CA of the system bundle besides the
      // kubeconfig's (and parsing that bundle on every connection). A
      // hashed-directory lookup under /dev/null can never find a
      // certificate, so the store keeps exactly the configured CAs.
      ssl_client->set_ca_cert_path("", "/dev/null");
    }
    client = std::move(ssl_client);
  }
  SetTimeout(options_.connect_timeout, [&](time_t sec, time_t usec) {
    client->set_connection_timeout(sec, usec);
  });
  SetTimeout(read_timeout, [&](time_t sec, time_t usec) {
    client->set_read_timeout(sec, usec);
  });
  SetTimeout(options_.request_timeout, [&](time_t sec, time_t usec) {
    client->set_write_timeout(sec, usec);
  });
  // Paths arrive already escaped (url_query.h); escaping again would
  // corrupt '%' sequences in selectors and continue tokens.
  client->set_url_encode(false);
  client->set_keep_alive(false);
  if (absl::Status status = SetHeaders(client.get()); !status.ok()) return status;
  return client;
}

absl::Status RestClient::SetHeaders(httplib::ClientImpl* client) {
  absl::StatusOr<std::string> token = BearerToken();
  if (!token.ok()) return token.status();
  httplib::Headers headers = {{"Accept", "application/json"},
                              {"User-Agent", kUserAgent}};
  if (!token->empty()) {
    headers.emplace("Authorization", absl::StrCat("Bearer ", *token));
  }
  client->set_default_headers(std::move(headers));
  return absl::OkStatus();
}

namespace {
// Enough for the concurrent reviews a server runs; more are closed after use.
constexpr size_t kMaxIdleClients = 16;
// Well under the idle timeouts of Go's HTTP servers and of the proxies in
// front of them, so a kept connection is rarely closed by the other side.
constexpr absl::Duration kMaxIdleTime = absl::Seconds(20);
}  // namespace

absl::StatusOr<std::unique_ptr<httplib::ClientImpl>> RestClient::TakeIdleClient(bool* reused) {
  std::unique_ptr<httplib::ClientImpl> kept;
  {
    absl::MutexLock lock(&pool_mu_);
    absl::Time now = absl::Now();
    // The most recently used are last: drop the stale ones from the front.
    size_t stale = 0;
    while (stale < idle_.size() && now - idle_[stale].since > kMaxIdleTime) ++stale;
    idle_.erase(idle_.begin(), idle_.begin() + stale);
    if (!idle_.empty()) {
      kept = std::move(idle_.back().client);
      idle_.pop_back();
    }
  }
  if (kept != nullptr) {
    *reused = true;
    // The token may have rotated since the client was made.
    if (absl::Status status = SetHeaders(kept.get()); !status.ok()) return status;
    return kept;
  }
  *reused = false;
  absl::StatusOr<std::unique_ptr<httplib::ClientImpl>> client =
      NewClient(options_.request_timeout);
  if (client.ok()) (*client)->set_keep_alive(true);
  return client;
}

void RestClient::ReturnIdleClient(std::unique_ptr<httplib::ClientImpl> client) {
  absl::MutexLock lock(&pool_mu_);
  if (idle_.size() < kMaxIdleClients) idle_.push_back({std::move(client), absl::Now()});
}

absl::StatusOr<HttpResponse> RestClient::Send(std::string_view method,
                                              std::string_view path,
                                              std::string_view body,
                                              std::string_view content_type,
                                              std::string_view accept) {
  const std::string full_path = base_path_ + std::string(path);
  const std::string body_copy(body);
  const std::string type(content_type);
  auto send = [&](httplib::ClientImpl* client) {
    if (method == "GET" && !accept.empty()) {
      return client->Get(full_path, httplib::Headers{{"Accept", std::string(accept)}});
    }
    if (method == "GET") return client->Get(full_path);
    if (method == "POST") return client->Post(full_path, body_copy, type);
    if (method == "PUT") return client->Put(full_path, body_copy, type);
    if (method == "PATCH") return client->Patch(full_path, body_copy, type);
    return client->Delete(full_path, body_copy, type);
  };
  bool reused = false;
  absl::StatusOr<std::unique_ptr<httplib::ClientImpl>> client = TakeIdleClient(&reused);
  if (!client.ok()) return client.status();
  httplib::Result result = send(client->get());
  if (!result && reused && method == "GET") {
    // cpp-httplib checks that a kept-alive connection is still open before
    // reusing it, but the server may close it just then: a GET, which
    // changes nothing, is sent once more on a new one.
    client = NewClient(options_.request_timeout);
    if (!client.ok()) return client.status();
    (*client)->set_keep_alive(true);
    result = send(client->get());
  }
  if (!result) {
    return absl::UnavailableError(
        absl::StrCat(std::string(method), " ", full_path, ": ",
                     httplib::to_string(result.error())));
  }
  HttpResponse response;
  response.status = result->status;
  response.retry_after = RetryAfter(*result);
  response.body = std::move(result->body);
  ReturnIdleClient(*std::move(client));
  return response;
}

absl::StatusOr<ForwardedResponse> RestClient::Forward(const ForwardedRequest& request,
                                                      size_t max_body_bytes) {
  absl::StatusOr<std::unique_ptr<httplib::ClientImpl>> client =
      NewClient(options_.request_timeout);
  if (!client.ok()) return client.status();
  (*client)->set_default_headers({});
  httplib::Request sent;
  sent.method = request.method;
  sent.path = base_path_ + request.path_and_query;
  for (const auto& [name, value] : request.headers) sent.headers.emplace(name, value);
  // cpp-httplib gives a body without a Content-Type "text/plain", which the
  // apiserver refuses (415); it reads no Content-Type, or an empty one, as
  // JSON. The Python client sends writes without one.
  if (!request.body.empty() && !sent.has_header("Content-Type")) {
    sent.headers.emplace("Content-Type", "");
  }
  sent.body = request.body;
  size_t received = 0;
  bool too_large = false;
  ForwardedResponse response;
  std::string body;
  // Each piece of the body as it arrives, so a body past the limit ends the
  // request instead of being held whole.
  sent.content_receiver = [&](const char* data, size_t size, uint64_t, uint64_t) {
    received += size;
    if (received > max_body_bytes) {
      too_large = true;
      return false;
    }
    body.append(data, size);
    return true;
  };
  httplib::Response got;
  httplib::Error error = httplib::Error::Success;
  if (!(*client)->send(sent, got, error)) {
    if (too_large) {
      return absl::ResourceExhaustedError(absl::StrCat(
          request.method, " ", request.path_and_query, ": the response exceeds ",
          max_body_bytes, " bytes"));
    }
    return absl::UnavailableError(absl::StrCat(request.method, " ", request.path_and_query,
                                               ": ", httplib::to_string(error)));
  }
  response.status = got.status;
  for (const auto& [name, value] : got.headers) response.headers.emplace_back(name, value);
  response.body = got.body.empty() ? std::move(body) : std::move(got.body);
  return response;
}

absl::StatusOr<HttpResponse> RestClient::Get(std::string_view path_and_query) {
  return Send("GET", path_and_query, "", "");
}

absl::StatusOr<HttpResponse> RestClient::GetAccepting(std::string_view path_and_query,
                                                      std::string_view accept) {
  return Send("GET", path_and_query, "", "", accept);
}

absl::StatusOr<HttpResponse> RestClient::Post(std::string_view path,
                                              std::string_view body,
                                              std::string_view content_type) {
  return Send("POST", path, body, content_type);
}

absl::StatusOr<HttpResponse> RestClient::Put(std::string_view path,
                                             std::string_view body,
                                             std::string_view content_type) {
  return Send("PUT", path, body, content_type);
}

absl::StatusOr<HttpResponse> RestClient::Patch(std::string_view path,
                                               std::string_view body,
                                               std::string_view content_type) {
  return Send("PATCH", path, body, content_type);
}

absl::StatusOr<HttpResponse> RestClient::Delete(std::string_view path,
                                                std::string_view body) {
  return Send("DELETE", path, body, body.empty() ? "" : "application/json");
}

absl::StatusOr<HttpResponse> RestClient::Stream(
    std::string_view path_and_query,
    absl::FunctionRef<bool(std::string_view chunk)> on_chunk,
    StreamCanceller* canceller) {
  absl::StatusOr<std::unique_ptr<httplib::ClientImpl>> client =
      NewClient(options_.stream_read_timeout);
  if (!client.ok()) return client.status();
  httplib::ClientImpl* raw = client->get();
  const std::string full_path = base_path_ + std::string(path_and_query);
  const absl::Status cancelled =
      absl::CancelledError(absl::StrCat("GET ", full_path, ": cancelled"));
  if (!shutdown_.Register(raw)) return cancelled;
  if (canceller != nullptr && !canceller->Register(raw)) {
    shutdown_.Unregister(raw);
    return cancelled;
  }

  HttpResponse response;
  bool stopped_by_caller = false;
  httplib::Result result = raw->Get(
      full_path,
      [&](const httplib::Response& head) {
        response.status = head.status;
        response.retry_after = RetryAfter(head);
        return true;
      },
      [&](const char* data, size_t length) {
        if (IsSuccess(response.status)) {
          if (!on_chunk(std::string_view(data, length))) {
            stopped_by_caller = true;
            return false;
          }
          return true;
        }
        const size_t room =
            options_.max_error_body_bytes - response.body.size();
        response.body.append(data, std::min(length, room));
        return true;
      });

  if (canceller != nullptr) canceller->Unregister(raw);
  shutdown_.Unregister(raw);
  if (result || stopped_by_caller) return response;
  if (shutdown_.cancelled() ||
      (canceller != nullptr && canceller->cancelled())) {
    return cancelled;
  }
  return absl::UnavailableError(absl::StrCat(
      "GET ", full_path, ": ", httplib::to_string(result.error())));
}

void RestClient::CancelStreams() { shutdown_.Cancel(); }

}  // namespace informerd::kube
