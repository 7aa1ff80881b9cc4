#include "server/kubeapi/kube_api_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "server/kubeapi/api_path.h"
#include "server/kubeapi/kube_json.h"
#include "server/kubeapi/read_request.h"
#include "server/log/log.h"
#include "server/service/watch_stream.h"

namespace informerd::kubeapi {
namespace {

constexpr std::string_view kComponent = "kubeapi";
using Headers = std::vector<std::pair<std::string, std::string>>;

struct Answer {
  int code = 200;
  Headers headers;
  std::string body;
};

Answer JsonAnswer(int code, std::string body) {
  return {code, {{"Content-Type", "application/json"}}, std::move(body)};
}
Answer ErrorAnswer(const ApiError& error) { return JsonAnswer(error.code, error.status_json); }

// Whether `accept` lets the answer be plain JSON: no Accept, or a range
// that covers application/json without asking for another form (as=Table,
// as=PartialObjectMetadata...), which the apiserver then answers instead.
bool AcceptsJson(absl::string_view accept) {
  if (absl::StripAsciiWhitespace(accept).empty()) return true;
  for (absl::string_view range : absl::StrSplit(accept, ',')) {
    std::vector<absl::string_view> parts = absl::StrSplit(range, ';');
    std::string type = absl::AsciiStrToLower(absl::StripAsciiWhitespace(parts[0]));
    if (type != "application/json" && type != "application/*" && type != "*/*") continue;
    bool other_form = false;
    for (size_t i = 1; i < parts.size(); ++i) {
      absl::string_view param = absl::StripAsciiWhitespace(parts[i]);
      if (absl::StartsWith(param, "as=")) other_form = true;
    }
    if (!other_form) return true;
  }
  return false;
}

bool IsLoopback(const std::string& ip) {
  return absl::StartsWith(ip, "127.") || ip == "::1" || absl::StartsWith(ip, "::ffff:127.");
}

std::string ClientAddress(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == nullptr || info->client_addr == nullptr) return "";
  char text[INET6_ADDRSTRLEN] = {};
  const sockaddr* address = info->client_addr;
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text,
              sizeof(text));
  } else if (address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text,
              sizeof(text));
  }
  return text;
}

// Percent-encodes all but `keep` and the unreserved characters: MHD hands
// the path and arguments decoded, and the apiserver gets them encoded again.
std::string Escape(absl::string_view text, absl::string_view keep) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
        keep.find(static_cast<char>(c)) != absl::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

bool HopByHop(absl::string_view name) {
  static const char* const kHop[] = {"connection", "keep-alive", "proxy-authenticate",
                                     "proxy-authorization", "te", "trailer", "transfer-encoding",
                                     "upgrade", "host", "content-length", "accept-encoding",
                                     "content-encoding", "date"};
  std::string lower = absl::AsciiStrToLower(name);
  for (const char* hop : kHop) {
    if (lower == hop) return true;
  }
  return false;
}

TypeNames TypeOf(const service::ServedResource& served) {
  TypeNames type;
  type.group = served.info.group;
  type.api_version = served.info.group.empty()
                         ? served.info.version
                         : absl::StrCat(served.info.group, "/", served.info.version);
  type.kind = served.info.kind;
  type.resource = served.info.resource;
  return type;
}

}  // namespace

// One HTTP request and its answer: a unary answer, a watch stream, or a
// pass-through. Created on libmicrohttpd's thread; answered from gRPC's
// or the pass-through's threads, which resume the suspended connection.
// Never calls gRPC or libmicrohttpd's processing while holding mu_, only
// MHD_suspend_connection/MHD_resume_connection, which run no callback.
class KubeApiServer::Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(KubeApiServer* server, MHD_Connection* connection)
      : server_(server), connection_(connection) {}

  // libmicrohttpd's access handler for this request (its thread).
  MHD_Result Handle(const char* url, const char* method, const char* upload,
                    size_t* upload_size);
  // The watch body's content reader (libmicrohttpd's thread).
  ssize_t Read(char* buffer, size_t max);
  // The request is over (completed, or its connection closed).
  void Closed();
  // Ends a watch (shutdown); unary answers come by themselves.
  void Cancel();
  // Waits (at most 10 s) until the connection is not suspended.
  void WaitNotSuspended();

  // From gRPC's threads.
  void Answered(Answer answer);
  void StreamStarted();
  // Whether the stream may read the next event now.
  bool StreamEvent(const v1::WatchEvent& event);
  void StreamEnded(const grpc::Status& status);

 private:
  class WatchCall;

  void Dispatch(const std::string& url, const std::string& method);
  void StartList(const TypeNames& type, v1::ListRequest request);
  void StartGet(const TypeNames& type, v1::GetRequest request);
  void StartWatch(const TypeNames& type, const ReadRequest& read);
  void StartPassThrough(const std::string& url, const std::string& method);
  // Prepares a gRPC call's metadata: the caller's token and address.
  void Authorize(grpc::ClientContext* context) const;
  // Whether the request asks to switch protocols (a WebSocket, SPDY).
  bool AsksForUpgrade() const;
  MHD_Result Queue(Answer answer);
  MHD_Result QueueStream();
  void SuspendLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ResumeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  KubeApiServer* const server_;
  MHD_Connection* const connection_;

  // Touched on libmicrohttpd's thread only.
  bool dispatched_ = false;
  bool too_large_ = false;
  std::string body_;
  Headers request_headers_;
  std::vector<std::pair<std::string, std::optional<std::string>>> query_;
  std::string authorization_;
  std::string client_host_;
  TypeNames type_;

  absl::Mutex mu_;
  bool suspended_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<Answer> answer_ ABSL_GUARDED_BY(mu_);
  // A watch: its call, whether its response began, what is left to send.
  std::shared_ptr<WatchCall> call_ ABSL_GUARDED_BY(mu_);
  bool watching_ ABSL_GUARDED_BY(mu_) = false;
  bool stream_started_ ABSL_GUARDED_BY(mu_) = false;
  bool stream_queued_ ABSL_GUARDED_BY(mu_) = false;
  bool stream_ended_ ABSL_GUARDED_BY(mu_) = false;
  bool read_paused_ ABSL_GUARDED_BY(mu_) = false;
  std::string pending_ ABSL_GUARDED_BY(mu_);
  size_t pending_at_ ABSL_GUARDED_BY(mu_) = 0;
};

// A watch's gRPC stream, reading into its Exchange. Deletes itself (drops
// its own reference) once gRPC is done with it.
class KubeApiServer::Exchange::WatchCall : public grpc::ClientReadReactor<v1::WatchEvent> {
 public:
  WatchCall(std::weak_ptr<Exchange> exchange, v1::WatchRequest request)
      : exchange_(std::move(exchange)), request_(std::move(request)) {}

  void Start(std::shared_ptr<WatchCall> self, v1::Cache::Stub* stub) {
    self_ = std::move(self);
    stub->async()->Watch(&context_, &request_, this);
    StartRead(&event_);
    StartCall();
  }
  void ReadNext() { StartRead(&event_); }
  void Cancel() { context_.TryCancel(); }
  grpc::ClientContext* context() { return &context_; }

  void OnReadInitialMetadataDone(bool ok) override {
    // A refused Watch sends headers too; a started one names itself.
    if (!ok || context_.GetServerInitialMetadata().count(service::kWatchStartedHeader) == 0) {
      return;
    }
    if (std::shared_ptr<Exchange> exchange = exchange_.lock()) exchange->StreamStarted();
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;  // OnDone follows
    std::shared_ptr<Exchange> exchange = exchange_.lock();
    if (exchange == nullptr) {
      context_.TryCancel();
      return;
    }
    if (exchange->StreamEvent(event_)) StartRead(&event_);
  }
  void OnDone(const grpc::Status& status) override {
    if (std::shared_ptr<Exchange> exchange = exchange_.lock()) exchange->StreamEnded(status);
    self_.reset();
  }

 private:
  const std::weak_ptr<Exchange> exchange_;
  grpc::ClientContext context_;
  v1::WatchRequest request_;
  v1::WatchEvent event_;
  std::shared_ptr<WatchCall> self_;
};

struct KubeApiServer::Callbacks {
  static MHD_Result Access(void* cls, MHD_Connection* connection, const char* url,
                           const char* method, const char* /*version*/, const char* upload,
                           size_t* upload_size, void** request_cls) {
    auto* server = static_cast<KubeApiServer*>(cls);
    if (*request_cls == nullptr) {
      auto exchange = std::make_shared<Exchange>(server, connection);
      {
        absl::MutexLock lock(&server->mu_);
        // Forget the exchanges that are gone, now and then.
        if (server->open_.size() > 64 && server->open_.size() % 64 == 0) {
          server->open_.erase(std::remove_if(server->open_.begin(), server->open_.end(),
                                             [](const std::weak_ptr<Exchange>& open) {
                                               return open.expired();
                                             }),
                              server->open_.end());
        }
        server->open_.push_back(exchange);
      }
      *request_cls = new std::shared_ptr<Exchange>(std::move(exchange));
      return MHD_YES;
    }
    auto* exchange = static_cast<std::shared_ptr<Exchange>*>(*request_cls);
    return (*exchange)->Handle(url, method, upload, upload_size);
  }

  static void Completed(void* /*cls*/, MHD_Connection* /*connection*/, void** request_cls,
                        MHD_RequestTerminationCode /*code*/) {
    auto* exchange = static_cast<std::shared_ptr<Exchange>*>(*request_cls);
    if (exchange == nullptr) return;
    (*exchange)->Closed();
    delete exchange;
    *request_cls = nullptr;
  }

  static ssize_t Read(void* cls, uint64_t /*pos*/, char* buffer, size_t max) {
    return (*static_cast<std::shared_ptr<Exchange>*>(cls))->Read(buffer, max);
  }

  static void FreeReader(void* cls) {
    auto* exchange = static_cast<std::shared_ptr<Exchange>*>(cls);
    (*exchange)->Closed();
    delete exchange;
  }

  static void FreeBody(void* cls) { delete static_cast<std::string*>(cls); }

  static MHD_Result CollectHeader(void* cls, MHD_ValueKind /*kind*/, const char* key,
                                  const char* value) {
    static_cast<Headers*>(cls)->emplace_back(key, value == nullptr ? "" : value);
    return MHD_YES;
  }

  static MHD_Result CollectArgument(void* cls, MHD_ValueKind /*kind*/, const char* key,
                                    const char* value) {
    static_cast<std::vector<std::pair<std::string, std::optional<std::string>>>*>(cls)
        ->emplace_back(key, value == nullptr ? std::nullopt
                                             : std::optional<std::string>(value));
    return MHD_YES;
  }
};

MHD_Result KubeApiServer::Exchange::Handle(const char* url, const char* method,
                                           const char* upload, size_t* upload_size) {
  if (*upload_size != 0) {
    if (body_.size() + *upload_size > server_->options_.max_request_body) {
      too_large_ = true;
    } else {
      body_.append(upload, *upload_size);
    }
    *upload_size = 0;
    return MHD_YES;
  }
  if (!dispatched_) {
    dispatched_ = true;
    if (too_large_) {
      return Queue(ErrorAnswer(MakeError(
          413, "RequestEntityTooLarge",
          absl::StrCat("the request body exceeds ", server_->options_.max_request_body,
                       " bytes"))));
    }
    Dispatch(url, method);
  }
  std::optional<Answer> answer;
  bool stream = false;
  {
    absl::MutexLock lock(&mu_);
    if (answer_.has_value()) {
      answer = std::move(answer_);
      answer_.reset();
    } else if (stream_started_ && !stream_queued_) {
      stream_queued_ = true;
      stream = true;
    } else if (!stream_queued_) {
      SuspendLocked();
      return MHD_YES;
    }
  }
  if (answer.has_value()) return Queue(*std::move(answer));
  if (stream) return QueueStream();
  return MHD_YES;
}

void KubeApiServer::Exchange::Dispatch(const std::string& url, const std::string& method) {
  MHD_get_connection_values(connection_, MHD_HEADER_KIND, &Callbacks::CollectHeader,
                            &request_headers_);
  MHD_get_connection_values(connection_, MHD_GET_ARGUMENT_KIND, &Callbacks::CollectArgument,
                            &query_);
  std::string accept;
  for (const auto& [name, value] : request_headers_) {
    if (absl::EqualsIgnoreCase(name, "authorization")) authorization_ = value;
    if (absl::EqualsIgnoreCase(name, "accept")) accept = value;
  }
  client_host_ = ClientAddress(connection_);
  if (server_->options_.trust_forwarded_for && IsLoopback(client_host_)) {
    for (const auto& [name, value] : request_headers_) {
      if (!absl::EqualsIgnoreCase(name, "x-forwarded-for")) continue;
      std::vector<absl::string_view> hops = absl::StrSplit(value, ',');
      std::string last(absl::StripAsciiWhitespace(hops.back()));
      if (!last.empty()) client_host_ = last;
    }
  }
  {
    absl::MutexLock lock(&server_->mu_);
    if (server_->stopping_) {
      absl::MutexLock own(&mu_);
      answer_ = ErrorAnswer(MakeError(503, "ServiceUnavailable", "informerd is shutting down"));
      return;
    }
  }

  std::optional<ApiPath> path = ParseApiPath(url);
  service::ServedResource* served = nullptr;
  if (path.has_value() && path->subresource.empty() && method == std::string("GET") &&
      AcceptsJson(accept)) {
    v1::ResourceName name;
    name.set_group(path->group);
    name.set_version(path->version);
    name.set_resource(path->resource);
    absl::StatusOr<service::ServedResource*> found = server_->registry_->Find(name);
    if (found.ok()) served = *found;
  }
  if (served == nullptr) return StartPassThrough(url, method);
  // A cluster-scoped resource has no namespace in its path; a namespaced
  // one named under /namespaces/ is read in it.
  if (!served->info.namespaced && !path->ns.empty()) return StartPassThrough(url, method);

  std::map<std::string, std::string> query;
  for (const auto& [key, value] : query_) query[key] = value.value_or("");
  absl::StatusOr<ReadRequest> read = MapReadRequest(*path, query);
  type_ = TypeOf(*served);
  if (!read.ok()) {
    absl::MutexLock lock(&mu_);
    answer_ = ErrorAnswer(MakeError(400, "BadRequest", std::string(read.status().message())));
    return;
  }
  switch (read->kind) {
    case ReadRequest::Kind::kList:
      return StartList(type_, read->list);
    case ReadRequest::Kind::kGet:
      return StartGet(type_, read->get);
    case ReadRequest::Kind::kWatch:
      if (AsksForUpgrade()) {
        // fabric8 asks for a WebSocket watch first and falls back to an HTTP
        // watch when the handshake answers 200; a 200 that streams the watch
        // instead never ends the handshake (its informer never syncs).
        absl::MutexLock lock(&mu_);
        answer_ = JsonAnswer(200, "");
        return;
      }
      return StartWatch(type_, *read);
    case ReadRequest::Kind::kPassThrough:
      return StartPassThrough(url, method);
  }
}

bool KubeApiServer::Exchange::AsksForUpgrade() const {
  for (const auto& [name, value] : request_headers_) {
    if (absl::EqualsIgnoreCase(name, "upgrade")) return true;
  }
  return false;
}

void KubeApiServer::Exchange::Authorize(grpc::ClientContext* context) const {
  if (!authorization_.empty()) context->AddMetadata("authorization", authorization_);
  if (!client_host_.empty()) context->AddMetadata("x-forwarded-for", client_host_);
}

void KubeApiServer::Exchange::StartList(const TypeNames& type, v1::ListRequest request) {
  struct Call {
    grpc::ClientContext context;
    v1::ListRequest request;
    v1::ListResponse response;
  };
  auto call = std::make_shared<Call>();
  call->request = std::move(request);
  call->context.set_deadline(absl::ToChronoTime(absl::Now() + server_->options_.read_deadline));
  Authorize(&call->context);
  server_->stub_->async()->List(
      &call->context, &call->request, &call->response,
      [self = shared_from_this(), call, type](grpc::Status status) {
        self->Answered(status.ok() ? JsonAnswer(200, ListJson(type, call->response))
                                   : ErrorAnswer(ErrorFor(status, &type)));
      });
}

void KubeApiServer::Exchange::StartGet(const TypeNames& type, v1::GetRequest request) {
  struct Call {
    grpc::ClientContext context;
    v1::GetRequest request;
    v1::GetResponse response;
  };
  auto call = std::make_shared<Call>();
  call->request = std::move(request);
  call->context.set_deadline(absl::ToChronoTime(absl::Now() + server_->options_.read_deadline));
  Authorize(&call->context);
  server_->stub_->async()->Get(
      &call->context, &call->request, &call->response,
      [self = shared_from_this(), call, type](grpc::Status status) {
        self->Answered(status.ok()
                           ? JsonAnswer(200, std::string(call->response.object().json()))
                           : ErrorAnswer(ErrorFor(status, &type, call->request.name())));
      });
}

void KubeApiServer::Exchange::StartWatch(const TypeNames& type, const ReadRequest& read) {
  auto call = std::make_shared<WatchCall>(weak_from_this(), read.watch);
  absl::Duration timeout = server_->options_.max_watch;
  if (read.timeout.has_value()) timeout = std::min(timeout, *read.timeout);
  call->context()->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  Authorize(call->context());
  {
    absl::MutexLock lock(&mu_);
    watching_ = true;
    call_ = call;
  }
  call->Start(call, server_->stub_.get());
}

void KubeApiServer::Exchange::StartPassThrough(const std::string& url, const std::string& method) {
  if (server_->pass_through_ == nullptr) {
    absl::MutexLock lock(&mu_);
    answer_ = ErrorAnswer(MakeError(
        404, "NotFound",
        absl::StrCat(method, " ", url,
                     ": informerd does not serve this and does not pass requests through "
                     "(--kube-api-pass-through=false)")));
    return;
  }
  kube::ForwardedRequest request;
  request.method = method;
  request.path_and_query = Escape(url, "/:@!$&'()*+,;=");
  bool first = true;
  bool watch = false;
  for (const auto& [key, value] : query_) {
    absl::StrAppend(&request.path_and_query, first ? "?" : "&", Escape(key, ""));
    if (value.has_value()) absl::StrAppend(&request.path_and_query, "=", Escape(*value, ""));
    first = false;
    if (key == "watch" && value.has_value()) watch = watch || ParseQueryBool(*value).value_or(false);
  }
  if (watch || absl::StrContains(url, "/watch/")) {
    absl::MutexLock lock(&mu_);
    answer_ = ErrorAnswer(MakeError(
        400, "BadRequest",
        absl::StrCat("informerd does not pass watches through: it serves watches of the "
                     "resources it caches (",
                     url, " is not one of them)")));
    return;
  }
  if (AsksForUpgrade()) {
    absl::MutexLock lock(&mu_);
    answer_ = ErrorAnswer(MakeError(
        400, "BadRequest", "informerd does not pass connection upgrades (exec, attach, "
                           "port-forward) through; use the apiserver's address"));
    return;
  }
  for (const auto& [name, value] : request_headers_) {
    if (!HopByHop(name)) request.headers.emplace_back(name, value);
  }
  request.body = std::move(body_);
  server_->pass_through_->Forward(
      std::move(request),
      [self = shared_from_this()](absl::StatusOr<kube::ForwardedResponse> response) {
        if (!response.ok()) {
          const bool busy = absl::IsResourceExhausted(response.status());
          const bool too_large = absl::IsOutOfRange(response.status());
          self->Answered(ErrorAnswer(MakeError(
              busy ? 429 : too_large ? 502 : 503,
              busy ? "TooManyRequests" : too_large ? "InternalError" : "ServiceUnavailable",
              absl::StrCat("informerd's pass-through to the apiserver: ",
                           response.status().message()))));
          return;
        }
        Answer answer;
        answer.code = response->status;
        for (auto& [name, value] : response->headers) {
          if (!HopByHop(name)) answer.headers.emplace_back(std::move(name), std::move(value));
        }
        answer.body = std::move(response->body);
        self->Answered(std::move(answer));
      });
}

void KubeApiServer::Exchange::SuspendLocked() {
  if (suspended_ || closed_) return;
  suspended_ = true;
  MHD_suspend_connection(connection_);
}

void KubeApiServer::Exchange::ResumeLocked() {
  if (!suspended_) return;
  suspended_ = false;
  MHD_resume_connection(connection_);
}

void KubeApiServer::Exchange::Answered(Answer answer) {
  absl::MutexLock lock(&mu_);
  answer_ = std::move(answer);
  ResumeLocked();
}

void KubeApiServer::Exchange::StreamStarted() {
  absl::MutexLock lock(&mu_);
  stream_started_ = true;
  ResumeLocked();
}

bool KubeApiServer::Exchange::StreamEvent(const v1::WatchEvent& event) {
  absl::MutexLock lock(&mu_);
  if (closed_) return false;
  stream_started_ = true;
  pending_ += WatchLineJson(type_, event);
  ResumeLocked();
  if (pending_.size() - pending_at_ >= server_->options_.watch_buffer_bytes) {
    read_paused_ = true;
    return false;
  }
  return true;
}

void KubeApiServer::Exchange::StreamEnded(const grpc::Status& status) {
  absl::MutexLock lock(&mu_);
  stream_ended_ = true;
  const grpc::StatusCode code = status.error_code();
  const bool quiet = status.ok() || code == grpc::StatusCode::DEADLINE_EXCEEDED ||
                     code == grpc::StatusCode::CANCELLED ||
                     code == grpc::StatusCode::RESOURCE_EXHAUSTED ||
                     code == grpc::StatusCode::UNAVAILABLE;
  if (!stream_started_) {
    // Refused before it began: the apiserver answers a resourceVersion too
    // old with a 200 whose one event is the 410; other refusals as errors.
    if (code == grpc::StatusCode::OUT_OF_RANGE) {
      answer_ = JsonAnswer(200, WatchErrorLine(ErrorFor(status, &type_)));
    } else if (status.ok() || code == grpc::StatusCode::DEADLINE_EXCEEDED) {
      answer_ = JsonAnswer(200, "");
    } else {
      answer_ = ErrorAnswer(ErrorFor(status, &type_));
    }
  } else if (!quiet) {
    pending_ += WatchErrorLine(ErrorFor(status, &type_));
  }
  ResumeLocked();
}

MHD_Result KubeApiServer::Exchange::Queue(Answer answer) {
  auto* body = new std::string(std::move(answer.body));
  MHD_Response* response = MHD_create_response_from_buffer_with_free_callback_cls(
      body->size(), body->data(), &Callbacks::FreeBody, body);
  if (response == nullptr) {
    delete body;
    return MHD_NO;
  }
  for (const auto& [name, value] : answer.headers) {
    MHD_add_response_header(response, name.c_str(), value.c_str());
  }
  MHD_Result queued = MHD_queue_response(connection_, static_cast<unsigned>(answer.code), response);
  MHD_destroy_response(response);
  return queued;
}

MHD_Result KubeApiServer::Exchange::QueueStream() {
  auto* self = new std::shared_ptr<Exchange>(shared_from_this());
  MHD_Response* response = MHD_create_response_from_callback(
      MHD_SIZE_UNKNOWN, 8 << 10, &Callbacks::Read, self, &Callbacks::FreeReader);
  if (response == nullptr) {
    delete self;
    return MHD_NO;
  }
  MHD_add_response_header(response, "Content-Type", "application/json");
  MHD_Result queued = MHD_queue_response(connection_, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return queued;
}

ssize_t KubeApiServer::Exchange::Read(char* buffer, size_t max) {
  std::shared_ptr<WatchCall> resume_reading;
  ssize_t written = 0;
  {
    absl::MutexLock lock(&mu_);
    if (pending_at_ < pending_.size()) {
      size_t n = std::min(max, pending_.size() - pending_at_);
      std::memcpy(buffer, pending_.data() + pending_at_, n);
      pending_at_ += n;
      if (pending_at_ == pending_.size()) {
        pending_.clear();
        pending_at_ = 0;
      }
      written = static_cast<ssize_t>(n);
      if (read_paused_ && pending_.size() - pending_at_ < server_->options_.watch_buffer_bytes) {
        read_paused_ = false;
        resume_reading = call_;
      }
    } else if (stream_ended_) {
      return MHD_CONTENT_READER_END_OF_STREAM;
    } else {
      SuspendLocked();
      return 0;
    }
  }
  if (resume_reading != nullptr) resume_reading->ReadNext();
  return written;
}

void KubeApiServer::Exchange::Closed() {
  std::shared_ptr<WatchCall> call;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    closed_ = true;
    call = call_;
  }
  if (call != nullptr) call->Cancel();
}

void KubeApiServer::Exchange::Cancel() {
  std::shared_ptr<WatchCall> call;
  {
    absl::MutexLock lock(&mu_);
    call = call_;
  }
  if (call != nullptr) call->Cancel();
}

void KubeApiServer::Exchange::WaitNotSuspended() {
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(
                           +[](bool* suspended) { return !*suspended; }, &suspended_),
                       absl::Seconds(10));
}

KubeApiServer::KubeApiServer(KubeApiOptions options, std::shared_ptr<grpc::Channel> channel,
                             const service::ResourceRegistry* registry, PassThrough* pass_through)
    : options_(std::move(options)),
      channel_(std::move(channel)),
      stub_(v1::Cache::NewStub(channel_)),
      registry_(registry),
      pass_through_(pass_through) {}

absl::StatusOr<std::unique_ptr<KubeApiServer>> KubeApiServer::Start(
    KubeApiOptions options, std::shared_ptr<grpc::Channel> channel,
    const service::ResourceRegistry* registry, PassThrough* pass_through) {
  const std::string address = options.address;
  size_t colon = address.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kube-api-address: \"", address, "\" is not HOST:PORT"));
  }
  std::string host = address.substr(0, colon);
  if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") host = "127.0.0.1";
  sockaddr_in v4 = {};
  sockaddr_in6 v6 = {};
  const sockaddr* bind_to = nullptr;
  unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
  if (inet_pton(AF_INET, host.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(static_cast<uint16_t>(port));
    bind_to = reinterpret_cast<const sockaddr*>(&v4);
  } else if (inet_pton(AF_INET6, host.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(static_cast<uint16_t>(port));
    bind_to = reinterpret_cast<const sockaddr*>(&v6);
    flags |= MHD_USE_IPv6;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--kube-api-address: \"", host, "\" is not an IP address"));
  }
  const bool tls = !options.tls_cert_pem.empty();
  if (tls != !options.tls_key_pem.empty()) {
    return absl::InvalidArgumentError(
        "--kube-api-address: HTTPS needs both --tls-cert-file and --tls-key-file");
  }
  // Where it may listen is config::Validate's (Server::Start) to decide.
  if (tls) flags |= MHD_USE_TLS;
  std::unique_ptr<KubeApiServer> server(
      new KubeApiServer(std::move(options), std::move(channel), registry, pass_through));
  const KubeApiOptions& o = server->options_;
  server->daemon_ = MHD_start_daemon(
      flags, static_cast<uint16_t>(port), nullptr, nullptr, &Callbacks::Access, server.get(),
      MHD_OPTION_SOCK_ADDR, bind_to,
      MHD_OPTION_CONNECTION_LIMIT, o.max_connections,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, o.max_connections_per_address,
      MHD_OPTION_CONNECTION_TIMEOUT,
      static_cast<unsigned>(absl::ToInt64Seconds(o.idle_timeout)),
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, o.connection_memory,
      MHD_OPTION_NOTIFY_COMPLETED, &Callbacks::Completed, server.get(),
      // Ignored without MHD_USE_TLS; an empty string there ends the list.
      tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, o.tls_cert_pem.c_str(),
      MHD_OPTION_HTTPS_MEM_KEY, o.tls_key_pem.c_str(),
      MHD_OPTION_END);
  if (server->daemon_ == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kube-api-address: cannot listen on ", address));
  }
  const MHD_DaemonInfo* info = MHD_get_daemon_info(server->daemon_, MHD_DAEMON_INFO_BIND_PORT);
  server->port_ = info == nullptr ? port : info->port;
  log::Info(kComponent, absl::StrCat("Kubernetes API on ", address, " (port ", server->port_,
                                     ") over ", tls ? "HTTPS" : "plain HTTP", ", pass-through to the apiserver ",
                                     pass_through == nullptr ? "off" : "on"));
  return server;
}

void KubeApiServer::Stop() {
  std::vector<std::shared_ptr<Exchange>> open;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_ || daemon_ == nullptr) return;
    stopping_ = true;
    for (const std::weak_ptr<Exchange>& weak : open_) {
      if (std::shared_ptr<Exchange> exchange = weak.lock()) open.push_back(std::move(exchange));
    }
    open_.clear();
  }
  MHD_socket listening = MHD_quiesce_daemon(daemon_);
  if (listening != MHD_INVALID_SOCKET) close(listening);
  for (const std::shared_ptr<Exchange>& exchange : open) exchange->Cancel();
  // Every suspended connection is resumed by its answer (reads end within
  // their deadline, pass-throughs within their timeout, watches once
  // cancelled): libmicrohttpd must not stop with one suspended.
  for (const std::shared_ptr<Exchange>& exchange : open) exchange->WaitNotSuspended();
  open.clear();
  MHD_stop_daemon(daemon_);
  daemon_ = nullptr;
}

KubeApiServer::~KubeApiServer() { Stop(); }

}  // namespace informerd::kubeapi
