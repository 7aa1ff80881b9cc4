// Upstream failures against the real kube-apiserver: informerd must lose
// nothing, keep its watchers, and end equal to a fresh LIST.
#include <set>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/fault_proxy/fault_proxy.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

using Item = std::pair<std::string, std::string>;

int ApiserverPort() {
  std::string url = std::getenv("INFORMERD_APISERVER_URL");
  return std::stoi(url.substr(url.rfind(':') + 1));
}

std::vector<Item> ApiItems(const std::string& path, std::string* rv) {
  rapidjson::Document doc = ApiGet(path);
  std::vector<Item> items;
  for (const auto& item : doc["items"].GetArray()) {
    const auto& metadata = item["metadata"];
    std::string ns = metadata.HasMember("namespace") ? metadata["namespace"].GetString() : "";
    items.emplace_back(absl::StrCat(ns, "/", metadata["name"].GetString()),
                       metadata["resourceVersion"].GetString());
  }
  *rv = doc["metadata"]["resourceVersion"].GetString();
  std::sort(items.begin(), items.end());
  return items;
}

std::vector<Item> InformerdItems(InProcessServer& server, v1::ResourceName resource,
                                 const std::string& ns, const std::string& min_rv) {
  std::vector<Item> items;
  v1::ListRequest request;
  *request.mutable_resource() = resource;
  request.set_namespace_(ns);
  request.set_resource_version(min_rv);
  request.set_limit(250);
  do {
    v1::ListResponse response;
    grpc::ClientContext context;
    grpc::Status status = server.stub().List(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_code() << ": " << status.error_message();
    if (!status.ok()) break;
    for (const auto& object : response.items()) {
      items.emplace_back(absl::StrCat(object.namespace_(), "/", object.name()),
                         object.resource_version());
    }
    request.set_continue_token(response.continue_token());
    request.clear_resource_version();
  } while (!request.continue_token().empty());
  std::sort(items.begin(), items.end());
  return items;
}

v1::ResourceName ConfigMaps() {
  v1::ResourceName name;
  name.set_resource("configmaps");
  return name;
}

TEST(Resilience, ThousandConfigMapsAndCustomResourcesConvergeToTheApiserversList) {
  std::string ns = CreateTestNamespace("many");
  // The CRD outlives test runs on a reused control plane: AlreadyExists is fine.
  auto created = AdminClient().Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.test.informerd.io"},
    "spec": {"group": "test.informerd.io", "scope": "Namespaced",
      "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
      "versions": [{"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})",
      "application/json");
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(created->status == 201 || created->status == 409) << created->body;
  // The CRD's API appears asynchronously.
  absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (AdminClient().Get("/apis/test.informerd.io/v1")->status != 200) {
    ASSERT_LT(absl::Now(), deadline) << "the widgets API never appeared";
    absl::SleepFor(absl::Milliseconds(100));
  }
  config::ResourceConfig configmaps{.resource = "configmaps", .namespace_ = ns};
  config::ResourceConfig widgets{.group = "test.informerd.io", .resource = "widgets"};
  InProcessServer server({configmaps, widgets});
  server.WaitSynced();

  for (int i = 0; i < 1000; ++i) CreateConfigMap(ns, absl::StrCat("cm-", i), {{"n", std::to_string(i % 7)}});
  for (int i = 0; i < 300; ++i) UpdateConfigMap(ns, absl::StrCat("cm-", i), {{"n", "x"}}, "updated");
  for (int i = 300; i < 500; ++i) UpdateConfigMap(ns, absl::StrCat("cm-", i), {{"relabeled", "yes"}}, "x");
  for (int i = 500; i < 800; ++i) DeleteConfigMap(ns, absl::StrCat("cm-", i));
  for (int i = 0; i < 50; ++i) {
    ApiSend("POST", absl::StrCat("/apis/test.informerd.io/v1/namespaces/", ns, "/widgets"),
            absl::StrCat(R"({"apiVersion":"test.informerd.io/v1","kind":"Widget","metadata":{"name":"w-)", i,
                         R"("},"spec":{"size":)", i, "}}"));
  }
  for (int i = 0; i < 20; ++i) {
    ApiSend("DELETE", absl::StrCat("/apis/test.informerd.io/v1/namespaces/", ns, "/widgets/w-", i), "");
  }

  // A namespaced informer learns the global version only from events in
  // its scope (and minutely bookmarks), so the reads wait for the version of
  // a last write in scope, as a controller's read-your-writes does.
  std::string marker_rv = CreateConfigMap(ns, "marker", {});
  std::string rv;
  std::vector<Item> expected = ApiItems(absl::StrCat("/api/v1/namespaces/", ns, "/configmaps"), &rv);
  EXPECT_EQ(expected.size(), 701u);
  EXPECT_EQ(InformerdItems(server, ConfigMaps(), ns, marker_rv), expected);
  v1::ResourceName widget_name;
  widget_name.set_group("test.informerd.io");
  widget_name.set_resource("widgets");
  rapidjson::Document last = ApiSend(
      "POST", absl::StrCat("/apis/test.informerd.io/v1/namespaces/", ns, "/widgets"),
      R"({"apiVersion":"test.informerd.io/v1","kind":"Widget","metadata":{"name":"marker"}})");
  std::vector<Item> expected_widgets =
      ApiItems(absl::StrCat("/apis/test.informerd.io/v1/namespaces/", ns, "/widgets"), &rv);
  EXPECT_EQ(expected_widgets.size(), 31u);
  EXPECT_EQ(InformerdItems(server, widget_name, ns, last["metadata"]["resourceVersion"].GetString()),
            expected_widgets);
}

TEST(Resilience, ApiserverRestartAndExpiredVersionRelistByDiffWithoutCuttingWatchers) {
  std::string ns = CreateTestNamespace("relist");
  for (int i = 0; i < 20; ++i) CreateConfigMap(ns, absl::StrCat("cm-", i), {});
  FaultProxy proxy("127.0.0.1", ApiserverPort());
  std::unique_ptr<kube::RestClient> client = AdminClientThrough(proxy.port());
  InProcessServer server({config::ResourceConfig{.resource = "configmaps", .namespace_ = ns}}, {},
                         client.get());
  server.WaitSynced();

  v1::WatchRequest request;
  *request.mutable_resource() = ConfigMaps();
  request.set_namespace_(ns);
  request.set_send_initial_events(true);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
  auto reader = server.stub().Watch(&context, request);
  v1::WatchEvent event;
  int initial = 0;
  while (reader->Read(&event) && event.type() == v1::WatchEvent::ADDED) ++initial;
  ASSERT_EQ(initial, 20);
  ASSERT_TRUE(event.initial_events_end());

  // informerd loses the apiserver; meanwhile the world changes.
  proxy.SetBlocked(true);
  proxy.Cut();
  for (int i = 0; i < 5; ++i) DeleteConfigMap(ns, absl::StrCat("cm-", i));
  for (int i = 5; i < 10; ++i) UpdateConfigMap(ns, absl::StrCat("cm-", i), {{"v", "2"}}, "changed");
  for (int i = 0; i < 5; ++i) CreateConfigMap(ns, absl::StrCat("new-", i), {});
  // A restarted apiserver's watch cache starts at the current version, so
  // informerd's resume point is now "too old": it must relist.
  KillApiserver();
  ControlPlane("restart-apiserver");
  proxy.SetBlocked(false);

  std::set<std::string> deleted, modified, added;
  while ((deleted.size() < 5 || modified.size() < 5 || added.size() < 5) && reader->Read(&event)) {
    const std::string& name = event.object().name();
    switch (event.type()) {
      case v1::WatchEvent::DELETED:
        EXPECT_TRUE(event.final_state_unknown()) << name;
        deleted.insert(name);
        break;
      case v1::WatchEvent::MODIFIED:
        modified.insert(name);
        break;
      case v1::WatchEvent::ADDED:
        added.insert(name);
        break;
      default:
        break;
    }
  }
  EXPECT_EQ(deleted, (std::set<std::string>{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4"}));
  EXPECT_EQ(modified, (std::set<std::string>{"cm-5", "cm-6", "cm-7", "cm-8", "cm-9"}));
  EXPECT_EQ(added, (std::set<std::string>{"new-0", "new-1", "new-2", "new-3", "new-4"}));
  const kube::ReflectorStats& stats = server.registry().all()[0]->reflector->stats();
  EXPECT_GE(stats.expired_410.load(), 1u);

  // The stream survived the relist: a later change still arrives.
  std::string rv = CreateConfigMap(ns, "after", {});
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.object().name(), "after");
  EXPECT_EQ(event.resource_version(), rv);
  context.TryCancel();
  reader->Finish();

  std::string list_rv;
  std::vector<Item> expected = ApiItems(absl::StrCat("/api/v1/namespaces/", ns, "/configmaps"), &list_rv);
  EXPECT_EQ(InformerdItems(server, ConfigMaps(), ns, rv), expected);
}

}  // namespace
}  // namespace informerd::testing
