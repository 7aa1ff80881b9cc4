#include "tests/integration/fake_root.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace informerd::testing {

v1::WatchEvent Event(v1::WatchEvent::Type type, const std::string& name,
                     const std::string& object_version, const std::string& event_version,
                     bool final_state_unknown) {
  v1::WatchEvent event;
  event.set_type(type);
  event.set_resource_version(event_version);
  event.set_final_state_unknown(final_state_unknown);
  v1::Object* object = event.mutable_object();
  object->set_name(name);
  object->set_namespace_("ns");
  object->set_resource_version(object_version);
  object->set_json(absl::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")",
                                name, R"(","namespace":"ns","resourceVersion":")",
                                object_version, R"("}})"));
  return event;
}

v1::WatchEvent Added(const std::string& name, const std::string& version) {
  return Event(v1::WatchEvent::ADDED, name, version, version);
}

v1::WatchEvent Bookmark(const std::string& version, bool initial_events_end) {
  v1::WatchEvent event;
  event.set_type(v1::WatchEvent::BOOKMARK);
  event.set_resource_version(version);
  event.mutable_object()->set_resource_version(version);
  event.set_initial_events_end(initial_events_end);
  return event;
}

v1::WatchEvent EndlessItem(size_t n) {
  const std::string name = absl::StrCat("endless-", n);
  const std::string version = absl::StrCat(n + 1);
  v1::WatchEvent event = Added(name, version);
  event.mutable_object()->set_json(absl::StrCat(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", name,
      R"(","namespace":"ns","resourceVersion":")", version, R"("},"data":{"x":")",
      std::string(kEndlessObjectBytes, 'x'), R"("}})"));
  return event;
}

FakeRoot::FakeRoot() {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
  builder.RegisterService(this);
  server_ = builder.BuildAndStart();
}

FakeRoot::~FakeRoot() {
  closing_.Notify();
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
}

void FakeRoot::Add(Script script) {
  absl::MutexLock lock(&mu_);
  scripts_.push_back(std::move(script));
}

std::shared_ptr<grpc::Channel> FakeRoot::Channel() const {
  return grpc::CreateChannel(absl::StrCat("127.0.0.1:", port_), grpc::InsecureChannelCredentials());
}

std::vector<v1::WatchRequest> FakeRoot::Requests(size_t n) {
  absl::MutexLock lock(&mu_);
  auto enough = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return requests_.size() >= n; };
  mu_.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(10));
  return requests_;
}

std::vector<std::string> FakeRoot::Authorizations() {
  absl::MutexLock lock(&mu_);
  return authorizations_;
}

grpc::Status FakeRoot::ListResources(grpc::ServerContext*, const v1::ListResourcesRequest*,
                                     v1::ListResourcesResponse* response) {
  v1::ResourceStatus* configmaps = response->add_resources();
  configmaps->mutable_resource()->set_version("v1");
  configmaps->mutable_resource()->set_resource("configmaps");
  configmaps->set_kind("ConfigMap");
  configmaps->set_namespaced(true);
  configmaps->set_synced(true);
  return grpc::Status::OK;
}

grpc::Status FakeRoot::Watch(grpc::ServerContext* context, const v1::WatchRequest* request,
                             grpc::ServerWriter<v1::WatchEvent>* writer) {
  Script script;
  script.hold = true;
  {
    absl::MutexLock lock(&mu_);
    requests_.push_back(*request);
    auto auth = context->client_metadata().find("authorization");
    authorizations_.push_back(auth == context->client_metadata().end()
                                  ? ""
                                  : std::string(auth->second.data(), auth->second.size()));
    if (!scripts_.empty()) {
      script = std::move(scripts_.front());
      scripts_.pop_front();
    }
  }
  for (const v1::WatchEvent& event : script.events) writer->Write(event);
  for (size_t n = 0, sent = 0; sent < script.endless_bytes && !context->IsCancelled(); ++n) {
    v1::WatchEvent item = EndlessItem(n);
    sent += item.object().json().size();
    if (!writer->Write(item)) break;
  }
  if (!script.hold) return script.end;
  // Until the reader cancels (or the test ends): the fake's own wait, not
  // the test's synchronisation.
  while (!context->IsCancelled() &&
         !closing_.WaitForNotificationWithTimeout(absl::Milliseconds(20))) {
  }
  return grpc::Status::CANCELLED;
}

}  // namespace informerd::testing
