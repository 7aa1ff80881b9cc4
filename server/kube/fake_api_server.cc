#include "server/kube/fake_api_server.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace informerd::kube {

std::string RecordedRequest::Param(const std::string& name) const {
  auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

FakeApiServer::FakeApiServer() {
  auto dispatch = [this](const httplib::Request& request,
                         httplib::Response& response) {
    Dispatch(request, response);
  };
  server_.Get(".*", dispatch);
  server_.Post(".*", dispatch);
  server_.Put(".*", dispatch);
  server_.Patch(".*", dispatch);
  server_.Delete(".*", dispatch);
  port_ = server_.bind_to_any_port("127.0.0.1");
  // The socket already listens, so requests queue until the loop accepts.
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  // stop() is a no-op until the loop runs, so the destructor could hang on
  // a server that never started; httplib offers no way to wait but polling.
  while (!server_.is_running()) std::this_thread::yield();
}

FakeApiServer::~FakeApiServer() {
  {
    absl::MutexLock lock(&mu_);
    shutting_down_ = true;
  }
  server_.stop();
  thread_.join();
}

void FakeApiServer::Handle(const std::string& path, Handler handler) {
  absl::MutexLock lock(&mu_);
  handlers_[path] = std::move(handler);
}

void FakeApiServer::Dispatch(const httplib::Request& request,
                             httplib::Response& response) {
  Handler handler;
  {
    absl::MutexLock lock(&mu_);
    RecordedRequest record;
    record.method = request.method;
    record.path = request.path;
    record.params.insert(request.params.begin(), request.params.end());
    for (const auto& [name, value] : request.headers) {
      record.headers[name] = value;
    }
    requests_.push_back(std::move(record));
    auto it = handlers_.find(request.path);
    if (it != handlers_.end()) handler = it->second;
  }
  if (!handler) {
    response.status = 404;
    response.set_content(
        R"({"kind":"Status","apiVersion":"v1","status":"Failure",)"
        R"("reason":"NotFound","code":404,"message":"not found"})",
        "application/json");
    return;
  }
  handler(request, response);
}

void FakeApiServer::ReplyStream(httplib::Response& response,
                                std::vector<std::string> chunks,
                                StreamEnd end) {
  auto pending = std::make_shared<std::vector<std::string>>(std::move(chunks));
  response.status = 200;
  response.set_chunked_content_provider(
      "application/json",
      [this, pending, end](size_t, httplib::DataSink& sink) {
        for (const std::string& chunk : *pending) {
          if (!sink.write(chunk.data(), chunk.size())) return false;
        }
        switch (end) {
          case StreamEnd::kClose:
            sink.done();
            return true;
          case StreamEnd::kCut:
            return false;
          case StreamEnd::kHang: {
            absl::MutexLock lock(&mu_);
            mu_.Await(absl::Condition(&shutting_down_));
            return false;
          }
        }
        return false;
      });
}

ClusterConfig FakeApiServer::config() const {
  ClusterConfig config;
  config.server = absl::StrCat("http://127.0.0.1:", port_);
  return config;
}

std::vector<RecordedRequest> FakeApiServer::requests() const {
  absl::MutexLock lock(&mu_);
  return requests_;
}

bool FakeApiServer::WaitForRequests(const std::string& path, size_t count,
                                    absl::Duration timeout) const {
  auto enough = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    size_t seen = 0;
    for (const RecordedRequest& request : requests_) {
      if (request.path == path) ++seen;
    }
    return seen >= count;
  };
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
}

}  // namespace informerd::kube
