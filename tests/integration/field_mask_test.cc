// Field masks against the kube-apiserver as the oracle: for pods,
// deployments, services and a custom resource, the object informerd's List,
// Get and Watch serve under a mask equals the apiserver's full object (its
// GET, or its own watch event) with every field outside the mask removed,
// compared as parsed JSON; in protobuf, the apiserver's encoding of that
// pruned object. A typo in a path is INVALID_ARGUMENT naming it.
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "server/cache/field_mask.h"
#include "server/cache/field_mask_oracle.h"
#include "server/kube/watch_decoder.h"
#include "server/kube_proto/kube_protobuf.h"
#include "tests/integration/informerd_process.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

rapidjson::Document ParseJson(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  EXPECT_FALSE(document.HasParseError()) << json;
  return document;
}

std::string Dump(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return buffer.GetString();
}

// What informerd caches of an apiserver object: all but managedFields.
std::string Cached(const rapidjson::Value& api) {
  rapidjson::Document copy;
  copy.CopyFrom(api, copy.GetAllocator());
  if (copy.HasMember("metadata")) copy["metadata"].RemoveMember("managedFields");
  return Dump(copy);
}

// The oracle: the apiserver's object with every field outside the mask
// removed.
std::string Pruned(const rapidjson::Value& api, const cache::FieldMask& mask) {
  return cache::PrunedJson(Cached(api), mask);
}

// One kind under test: where it lives in the apiserver, two objects to
// create, a change inside the mask and one outside it, and the mask.
struct MaskCase {
  std::string group;  // "" for the core group
  std::string version;
  std::string resource;
  std::string kind;
  std::vector<std::string> fields;
  bool with_metadata = false;
  // JSON bodies by name: the objects created.
  std::map<std::string, std::string> objects;
  // Merge patches of the first object: inside, then outside the mask.
  std::string patch_inside;
  std::string patch_outside;
  bool has_protobuf = true;

  std::string Collection(const std::string& ns) const {
    return absl::StrCat(group.empty() ? "/api/" : absl::StrCat("/apis/", group, "/"), version,
                        "/namespaces/", ns, "/", resource);
  }
  cache::FieldMask Mask() const {
    absl::StatusOr<cache::FieldMask> mask = cache::FieldMask::Parse(fields, with_metadata);
    EXPECT_TRUE(mask.ok()) << mask.status();
    return mask.ok() ? *mask : cache::FieldMask();
  }
};

template <typename Request>
void SetRequest(const MaskCase& c, const std::string& ns, v1::Encoding encoding, Request* request) {
  request->mutable_resource()->set_group(c.group);
  request->mutable_resource()->set_resource(c.resource);
  request->set_namespace_(ns);
  request->set_encoding(encoding);
  if (c.with_metadata) request->set_projection(v1::PROJECTION_METADATA);
  for (const std::string& field : c.fields) request->add_fields(field);
}

// The served form of one object, as JSON: decoded from the reply's json,
// or, for protobuf, checked to be the apiserver encoding of `expected`.
void ExpectServed(const MaskCase& c, const v1::Object& object, const std::string& expected,
                  v1::Encoding encoding, const std::string& where) {
  SCOPED_TRACE(absl::StrCat(c.resource, " ", object.name(), " ", where));
  if (encoding == v1::ENCODING_PROTOBUF && c.has_protobuf) {
    ASSERT_TRUE(object.json().empty()) << object.json();
    absl::StatusOr<std::string> want = kube_proto::KubeProtobuf::Default().Encode(expected);
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_TRUE(object.protobuf() == *want) << "pruned apiserver object: " << expected;
    return;
  }
  ASSERT_TRUE(object.protobuf().empty());
  rapidjson::Document served = ParseJson(object.json());
  rapidjson::Document want = ParseJson(expected);
  EXPECT_TRUE(served == want) << "informerd: " << object.json() << "\noracle:    " << expected;
}

// The apiserver's watch events of the collection from `rv` until the
// DELETED of `marker`: (type, full object).
std::vector<std::pair<std::string, std::string>> ApiWatch(const MaskCase& c, const std::string& ns,
                                                          const std::string& rv,
                                                          const std::string& marker) {
  std::vector<std::pair<std::string, std::string>> events;
  bool done = false;
  kube::WatchDecoder decoder;
  auto response = AdminClient().Stream(
      absl::StrCat(c.Collection(ns), "?watch=1&timeoutSeconds=30&resourceVersion=", rv),
      [&](std::string_view chunk) {
        absl::Status status = decoder.Feed(chunk, [&](std::string* frame) {
          if (done) return absl::OkStatus();
          rapidjson::Document doc = ParseJson(*frame);
          const std::string type = doc["type"].GetString();
          if (type == "BOOKMARK") return absl::OkStatus();
          events.emplace_back(type, Dump(doc["object"]));
          done = type == "DELETED" && doc["object"]["metadata"]["name"].GetString() == marker;
          return absl::OkStatus();
        });
        EXPECT_TRUE(status.ok()) << status;
        return !done;
      });
  EXPECT_TRUE(response.ok()) << response.status();
  EXPECT_TRUE(done) << "the apiserver never sent the DELETED of " << marker;
  return events;
}

void RunCase(InProcessServer& server, const MaskCase& c, const std::string& ns) {
  SCOPED_TRACE(c.resource);
  const cache::FieldMask mask = c.Mask();
  std::string rv;
  for (const auto& [name, body] : c.objects) {
    rv = ApiSend("POST", c.Collection(ns), body)["metadata"]["resourceVersion"].GetString();
  }
  server.WaitForVersion(c.resource, rv);
  std::map<std::string, std::string> expected;
  for (const auto& [name, body] : c.objects) {
    expected[name] = Pruned(ApiGet(absl::StrCat(c.Collection(ns), "/", name)), mask);
  }
  for (v1::Encoding encoding : {v1::ENCODING_JSON, v1::ENCODING_PROTOBUF}) {
    SCOPED_TRACE(v1::Encoding_Name(encoding));
    v1::ListRequest list;
    SetRequest(c, ns, encoding, &list);
    list.set_resource_version(rv);
    v1::ListResponse listed;
    grpc::ClientContext list_context;
    grpc::Status status = server.stub().List(&list_context, list, &listed);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(listed.items_size(), static_cast<int>(c.objects.size()));
    for (const v1::Object& item : listed.items()) {
      ExpectServed(c, item, expected[item.name()], encoding, "List");
    }
    for (const auto& [name, body] : c.objects) {
      v1::GetRequest get;
      SetRequest(c, ns, encoding, &get);
      get.set_name(name);
      v1::GetResponse got;
      grpc::ClientContext get_context;
      status = server.stub().Get(&get_context, get, &got);
      ASSERT_TRUE(status.ok()) << status.error_message();
      ExpectServed(c, got.object(), expected[name], encoding, "Get");
    }
  }

  // Watch from the creations: a change inside the mask, one outside it
  // (still delivered, as the apiserver does), then both deletes.
  const std::string first = c.objects.begin()->first;
  const std::string second = std::next(c.objects.begin())->first;
  v1::WatchRequest watch;
  SetRequest(c, ns, v1::ENCODING_JSON, &watch);
  watch.set_resource_version(rv);
  grpc::ClientContext watch_context;
  watch_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  auto reader = server.stub().Watch(&watch_context, watch);
  const std::string object_path = absl::StrCat(c.Collection(ns), "/", first);
  ApiSend("PATCH", object_path, c.patch_inside);
  ApiSend("PATCH", object_path, c.patch_outside);
  const std::string delete_now = R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})";
  ApiSend("DELETE", absl::StrCat(c.Collection(ns), "/", second), delete_now);
  ApiSend("DELETE", object_path, delete_now);
  std::vector<std::pair<std::string, std::string>> api_events = ApiWatch(c, ns, rv, first);
  std::vector<v1::WatchEvent> events;
  v1::WatchEvent event;
  while (reader->Read(&event)) {
    if (event.type() == v1::WatchEvent::BOOKMARK) continue;
    events.push_back(event);
    if (event.type() == v1::WatchEvent::DELETED && event.object().name() == first) break;
  }
  watch_context.TryCancel();
  reader->Finish();
  ASSERT_EQ(events.size(), api_events.size());
  ASSERT_GE(events.size(), 4u);
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(v1::WatchEvent::Type_Name(events[i].type()), api_events[i].first) << i;
    ExpectServed(c, events[i].object(), Pruned(ParseJson(api_events[i].second), mask),
                 v1::ENCODING_JSON, absl::StrCat("Watch event ", i));
  }
}

std::string Pod(const std::string& name, const std::string& node) {
  return absl::StrCat(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", name,
                      R"(","labels":{"app":"web","tier":"front"},"annotations":{"note":"n"}},)",
                      R"("spec":{"nodeName":")", node, R"(","containers":[)",
                      R"({"name":"main","image":"registry.example/main:1","args":["a","b"],)",
                      R"("resources":{"limits":{"cpu":"1","memory":"1Gi"}},"ports":[{"containerPort":80}]},)",
                      R"({"name":"side","image":"registry.example/side:2","env":[{"name":"X","value":"y"}]}]}})");
}

std::string Deployment(const std::string& name) {
  return absl::StrCat(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")", name,
                      R"(","labels":{"app":"web"}},"spec":{"replicas":2,)",
                      R"("selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)",
                      R"("spec":{"containers":[{"name":"main","image":"registry.example/main:1"},)",
                      R"({"name":"side","image":"registry.example/side:2"}]}}}})");
}

std::string Service(const std::string& name) {
  return absl::StrCat(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":")", name,
                      R"("},"spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,)",
                      R"("targetPort":8080},{"name":"https","port":443,"targetPort":"https"}]}})");
}

class FieldMaskTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ns_ = new std::string(CreateTestNamespace("field-mask"));
    group_ = new std::string(absl::StrCat("masks", absl::ToUnixMicros(absl::Now()) % 100000000,
                                          ".test.informerd.io"));
    ApiSend("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", absl::StrCat(R"({
      "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "widgets.)", *group_, R"("},
      "spec": {"group": ")", *group_, R"(", "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
        "versions": [{"name": "v1", "served": true, "storage": true,
          "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
              "size": {"type": "integer"}, "color": {"type": "string"},
              "items": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "weight": {"type": "integer"}}}}}},
            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}]}})"));
    ASSERT_TRUE(Eventually([] {
      auto got = AdminClient().Get(absl::StrCat("/apis/", *group_, "/v1"));
      return got.ok() && got->status == 200;
    }, absl::Seconds(30))) << "the CRD was not served";
    server_ = new InProcessServer({
        config::ResourceConfig{.resource = "pods", .namespace_ = *ns_},
        config::ResourceConfig{.group = "apps", .resource = "deployments", .namespace_ = *ns_},
        config::ResourceConfig{.resource = "services", .namespace_ = *ns_},
        config::ResourceConfig{.group = *group_, .resource = "widgets", .namespace_ = *ns_},
    });
    server_->WaitSynced();
  }
  static void TearDownTestSuite() { delete server_; }

  static std::string* ns_;
  static std::string* group_;
  static InProcessServer* server_;
};

std::string* FieldMaskTest::ns_ = nullptr;
std::string* FieldMaskTest::group_ = nullptr;
InProcessServer* FieldMaskTest::server_ = nullptr;

TEST_F(FieldMaskTest, PodsEqualTheApiserversObjectPruned) {
  MaskCase c;
  c.version = "v1";
  c.resource = "pods";
  c.kind = "Pod";
  // The node agent's five fields.
  c.fields = {"spec.nodeName", "status.podIP", "metadata.labels", "spec.containers.image",
              "status.phase"};
  c.objects = {{"pod-a", Pod("pod-a", "node-1")}, {"pod-b", Pod("pod-b", "node-2")}};
  c.patch_inside = R"({"metadata":{"labels":{"app":"api"}}})";
  c.patch_outside = R"({"metadata":{"annotations":{"note":"changed"}}})";
  RunCase(*server_, c, *ns_);
}

TEST_F(FieldMaskTest, PodsWithMetadataProjectionAndAMask) {
  MaskCase c;
  c.version = "v1";
  c.resource = "pods";
  c.kind = "Pod";
  c.with_metadata = true;
  c.fields = {"spec.nodeName", "spec.containers.resources.limits.cpu"};
  c.objects = {{"meta-a", Pod("meta-a", "node-1")}, {"meta-b", Pod("meta-b", "node-3")}};
  c.patch_inside = R"({"metadata":{"labels":{"app":"api"}}})";
  c.patch_outside = R"({"spec":{"activeDeadlineSeconds":600}})";
  RunCase(*server_, c, *ns_);
}

TEST_F(FieldMaskTest, DeploymentsEqualTheApiserversObjectPruned) {
  MaskCase c;
  c.group = "apps";
  c.version = "v1";
  c.resource = "deployments";
  c.kind = "Deployment";
  c.fields = {"spec.replicas", "spec.template.spec.containers.image", "metadata.generation",
              "metadata.ownerReferences", "status.conditions.type"};
  c.objects = {{"deploy-a", Deployment("deploy-a")}, {"deploy-b", Deployment("deploy-b")}};
  c.patch_inside = R"({"spec":{"replicas":3}})";
  c.patch_outside = R"({"metadata":{"annotations":{"note":"changed"}}})";
  RunCase(*server_, c, *ns_);
}

TEST_F(FieldMaskTest, ServicesEqualTheApiserversObjectPruned) {
  MaskCase c;
  c.version = "v1";
  c.resource = "services";
  c.kind = "Service";
  c.fields = {"spec.ports.port", "spec.ports.targetPort", "spec.clusterIP", "spec.type"};
  c.objects = {{"svc-a", Service("svc-a")}, {"svc-b", Service("svc-b")}};
  c.patch_inside = R"({"spec":{"ports":[{"name":"http","port":81,"targetPort":8080}]}})";
  c.patch_outside = R"({"metadata":{"labels":{"changed":"yes"}}})";
  RunCase(*server_, c, *ns_);
}

TEST_F(FieldMaskTest, CustomResourcesEqualTheApiserversObjectPruned) {
  MaskCase c;
  c.group = *group_;
  c.version = "v1";
  c.resource = "widgets";
  c.kind = "Widget";
  c.fields = {"spec.size", "spec.items.name", "extra.deep.below"};
  c.has_protobuf = false;
  auto widget = [&](const std::string& name) {
    return absl::StrCat(R"({"apiVersion":")", *group_, R"(/v1","kind":"Widget","metadata":{"name":")",
                        name, R"("},"spec":{"size":3,"color":"red","items":[{"name":"x","weight":1},)",
                        R"({"weight":2}]},"extra":{"deep":{"below":[1],"other":2},"top":true}})");
  };
  c.objects = {{"widget-a", widget("widget-a")}, {"widget-b", widget("widget-b")}};
  c.patch_inside = R"({"spec":{"size":4}})";
  c.patch_outside = R"({"spec":{"color":"blue"}})";
  RunCase(*server_, c, *ns_);
}

TEST_F(FieldMaskTest, APathNamingNoFieldIsInvalidArgumentNamingIt) {
  v1::GetRequest get;
  get.mutable_resource()->set_resource("pods");
  get.set_namespace_(*ns_);
  get.set_name("any");
  get.add_fields("spec.nodeName");
  get.add_fields("spec.nodeNmae");
  v1::GetResponse got;
  grpc::ClientContext context;
  grpc::Status status = server_->stub().Get(&context, get, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "fields[1] \"spec.nodeNmae\": no field \"nodeNmae\" in k8s.io.api.core.v1.PodSpec");

  v1::WatchRequest watch;
  watch.mutable_resource()->set_group("apps");
  watch.mutable_resource()->set_resource("deployments");
  watch.add_fields("spec.template.spec.containers.imag");
  grpc::ClientContext watch_context;
  auto reader = server_->stub().Watch(&watch_context, watch);
  v1::WatchEvent event;
  EXPECT_FALSE(reader->Read(&event));
  status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "fields[0] \"spec.template.spec.containers.imag\": no field \"imag\" in "
            "k8s.io.api.core.v1.Container");

  // A custom resource's paths are checked against its CRD's schema.
  v1::GetRequest widget;
  widget.mutable_resource()->set_group(*group_);
  widget.mutable_resource()->set_resource("widgets");
  widget.set_namespace_(*ns_);
  widget.set_name("any");
  widget.add_fields("extra.anything.below");  // preserve-unknown-fields
  widget.add_fields("spec.colr");
  grpc::ClientContext widget_context;
  status = server_->stub().Get(&widget_context, widget, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            absl::StrCat("fields[1] \"spec.colr\": no field \"colr\" in the schema of widgets.",
                         *group_, " at spec"));

  v1::ListRequest list;
  list.mutable_resource()->set_resource("services");
  list.add_fields("spec..ports");
  v1::ListResponse listed;
  grpc::ClientContext list_context;
  status = server_->stub().List(&list_context, list, &listed);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "fields[0] \"spec..ports\": empty segment");
}

}  // namespace
}  // namespace informerd::testing
