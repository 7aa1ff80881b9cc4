// The kube-apiserver is the oracle: for a random sequence of creates,
// updates, relabels and deletes, informerd's List and Watch must answer
// exactly as the apiserver does for the same request.
#include <algorithm>
#include <iostream>
#include <random>
#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "server/kube/discovery.h"
#include "server/kube/reflector.h"
#include "server/kube/watch_decoder.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

using Item = std::pair<std::string, std::string>;  // name, resourceVersion
// type, name, rv, labels ("k=v,..." sorted): the labels tell which state of
// the object an event carries (for a transition DELETED: the old or the new).
using Seen = std::tuple<std::string, std::string, std::string, std::string>;

const char* const kSelectors[] = {"", "app=a", "app!=a", "tier in (x,y)", "tier notin (x)",
                                  "!tier", "app,tier", "app=b,tier=y"};

// Random churn in `ns`; returns the names that may exist.
void Churn(const std::string& ns, int operations, uint32_t seed) {
  std::mt19937 random(seed);
  std::map<std::string, std::map<std::string, std::string>> live;
  auto random_labels = [&] {
    std::map<std::string, std::string> labels;
    if (random() % 3 != 0) labels["app"] = random() % 2 ? "a" : "b";
    if (random() % 2 != 0) labels["tier"] = std::string(1, "xyz"[random() % 3]);
    return labels;
  };
  for (int i = 0; i < operations; ++i) {
    int choice = static_cast<int>(random() % 10);
    if (live.empty() || choice < 4) {
      std::string name = absl::StrCat("cm-", i);
      live[name] = random_labels();
      CreateConfigMap(ns, name, live[name]);
    } else {
      auto it = std::next(live.begin(), static_cast<long>(random() % live.size()));
      if (choice < 8) {
        it->second = random_labels();
        UpdateConfigMap(ns, it->first, it->second, absl::StrCat("v", i));
      } else {
        DeleteConfigMap(ns, it->first);
        live.erase(it);
      }
    }
  }
}

std::string JoinLabels(std::map<std::string, std::string> labels) {
  std::string out;
  for (const auto& [key, value] : labels) absl::StrAppend(&out, out.empty() ? "" : ",", key, "=", value);
  return out;
}

std::string JsonLabels(const rapidjson::Value& object) {
  std::map<std::string, std::string> labels;
  const rapidjson::Value& metadata = object["metadata"];
  if (metadata.HasMember("labels") && metadata["labels"].IsObject()) {
    for (const auto& label : metadata["labels"].GetObject()) {
      labels[label.name.GetString()] = label.value.GetString();
    }
  }
  return JoinLabels(std::move(labels));
}

std::string Escape(const std::string& selector) {
  std::string out;
  for (char c : selector) {
    if (c == ' ') out += "%20";
    else if (c == '!') out += "%21";
    else if (c == '(') out += "%28";
    else if (c == ')') out += "%29";
    else if (c == ',') out += "%2C";
    else if (c == '=') out += "%3D";
    else out.push_back(c);
  }
  return out;
}

std::vector<Item> ApiList(const std::string& ns, const std::string& selector) {
  rapidjson::Document doc = ApiGet(absl::StrCat("/api/v1/namespaces/", ns,
                                                "/configmaps?labelSelector=", Escape(selector)));
  std::vector<Item> items;
  for (const auto& item : doc["items"].GetArray()) {
    items.emplace_back(item["metadata"]["name"].GetString(),
                       item["metadata"]["resourceVersion"].GetString());
  }
  std::sort(items.begin(), items.end());
  return items;
}

// One List of configmaps in `ns`; fails the test unless OK.
v1::ListResponse InformerdListResponse(InProcessServer& server, const std::string& ns,
                                       const std::string& selector, const std::string& min_rv) {
  v1::ListRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  request.set_label_selector(selector);
  request.set_resource_version(min_rv);
  v1::ListResponse response;
  grpc::ClientContext context;
  grpc::Status status = server.stub().List(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

std::vector<Item> InformerdList(InProcessServer& server, const std::string& ns,
                                const std::string& selector, const std::string& min_rv) {
  v1::ListResponse response = InformerdListResponse(server, ns, selector, min_rv);
  std::vector<Item> items;
  for (const auto& object : response.items()) {
    items.emplace_back(object.name(), object.resource_version());
  }
  std::sort(items.begin(), items.end());
  return items;
}

// A watch's selector and the marker object that ends its stream: one it
// matches, created last.
struct WatchCase {
  const char* selector;
  const char* marker;
  std::map<std::string, std::string> labels;
};

// The apiserver's watch events from `rv` up to and including the event for
// the object named `marker`.
std::vector<Seen> ApiWatch(const std::string& ns, const std::string& selector,
                           const std::string& rv, const std::string& marker) {
  std::vector<Seen> seen;
  bool done = false;
  kube::WatchDecoder decoder;
  auto response = AdminClient().Stream(
      absl::StrCat("/api/v1/namespaces/", ns, "/configmaps?watch=1&resourceVersion=", rv,
                   "&timeoutSeconds=30&labelSelector=", Escape(selector)),
      [&](std::string_view chunk) {
        absl::Status status = decoder.Feed(chunk, [&](std::string* frame) {
          if (done) return absl::OkStatus();
          rapidjson::Document doc;
          doc.Parse(frame->data(), frame->size());
          std::string name = doc["object"]["metadata"]["name"].GetString();
          seen.emplace_back(doc["type"].GetString(), name,
                            doc["object"]["metadata"]["resourceVersion"].GetString(),
                            JsonLabels(doc["object"]));
          done = name == marker;
          return absl::OkStatus();
        });
        EXPECT_TRUE(status.ok()) << status;
        return !done;
      });
  EXPECT_TRUE(response.ok()) << response.status();
  EXPECT_TRUE(done) << "the apiserver never sent " << marker;
  return seen;
}

std::vector<Seen> InformerdWatch(InProcessServer& server, const std::string& ns,
                                 const std::string& selector, const std::string& rv,
                                 const std::string& marker) {
  v1::WatchRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  request.set_label_selector(selector);
  request.set_resource_version(rv);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  auto reader = server.stub().Watch(&context, request);
  std::vector<Seen> seen;
  v1::WatchEvent event;
  while (reader->Read(&event)) {
    if (event.type() == v1::WatchEvent::BOOKMARK) continue;
    seen.emplace_back(
        v1::WatchEvent::Type_Name(event.type()), event.object().name(),
        event.object().resource_version(),
        JoinLabels({event.object().labels().begin(), event.object().labels().end()}));
    if (event.object().name() == marker) break;
  }
  context.TryCancel();
  reader->Finish();
  return seen;
}

// What the apiserver answers to a streaming list (KEP-3157) of `ns`.
struct ApiWatchList {
  int http_status = 0;
  std::string refusal;        // the Status message when refused
  std::vector<Item> initial;  // the initial ADDED events, sorted
  bool initial_events_end = false;
  std::string end_resource_version;
};

ApiWatchList StreamingListFromApiserver(const std::string& ns, const std::string& selector) {
  ApiWatchList answer;
  kube::WatchDecoder decoder;
  auto response = AdminClient().Stream(
      absl::StrCat("/api/v1/namespaces/", ns,
                   "/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                   "&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=30&labelSelector=",
                   Escape(selector)),
      [&](std::string_view chunk) {
        absl::Status status = decoder.Feed(chunk, [&](std::string* frame) {
          if (answer.initial_events_end) return absl::OkStatus();
          rapidjson::Document doc;
          doc.Parse(frame->data(), frame->size());
          const rapidjson::Value& metadata = doc["object"]["metadata"];
          const std::string type = doc["type"].GetString();
          if (type == "ADDED") {
            answer.initial.emplace_back(metadata["name"].GetString(),
                                        metadata["resourceVersion"].GetString());
          } else if (type == "BOOKMARK" && metadata.HasMember("annotations") &&
                     metadata["annotations"].HasMember("k8s.io/initial-events-end")) {
            answer.initial_events_end =
                std::string(metadata["annotations"]["k8s.io/initial-events-end"].GetString()) ==
                "true";
            answer.end_resource_version = metadata["resourceVersion"].GetString();
          } else {
            ADD_FAILURE() << "unexpected " << type << " before the initial-events-end bookmark";
          }
          return absl::OkStatus();
        });
        EXPECT_TRUE(status.ok()) << status;
        return !answer.initial_events_end;
      });
  EXPECT_TRUE(response.ok()) << response.status();
  if (response.ok()) {
    answer.http_status = response->status;
    if (response->status != 200) {
      rapidjson::Document status;
      status.Parse(response->body.data(), response->body.size());
      if (status.IsObject() && status.HasMember("message")) {
        answer.refusal = status["message"].GetString();
      }
    }
  }
  std::sort(answer.initial.begin(), answer.initial.end());
  return answer;
}

// informerd's WatchList (send_initial_events) of `ns` from a state not
// older than `min_rv` (the latest informerd has seen may trail the
// apiserver by an event in flight: the version of one's own last write
// asks for a state at least that new, as the apiserver's NotOlderThan).
std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> InformerdWatchList(
    InProcessServer& server, grpc::ClientContext* context, const std::string& ns,
    const std::string& selector, const std::string& min_rv) {
  v1::WatchRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  request.set_label_selector(selector);
  request.set_send_initial_events(true);
  request.set_resource_version(min_rv);
  request.set_allow_bookmarks(true);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return server.stub().Watch(context, request);
}

// The initial ADDED events, sorted; `*end` is the event that ended them.
std::vector<Item> ReadInitialEvents(grpc::ClientReader<v1::WatchEvent>& reader,
                                    v1::WatchEvent* end) {
  std::vector<Item> initial;
  while (reader.Read(end) && end->type() == v1::WatchEvent::ADDED) {
    initial.emplace_back(end->object().name(), end->object().resource_version());
  }
  std::sort(initial.begin(), initial.end());
  return initial;
}

// A Watch of configmaps in `ns` ("": all) from `rv` that must end before
// its first event; returns how it ended.
grpc::Status RefusedWatch(InProcessServer& server, const std::string& ns, const std::string& rv) {
  v1::WatchRequest watch;
  watch.mutable_resource()->set_resource("configmaps");
  watch.set_namespace_(ns);
  watch.set_resource_version(rv);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  auto reader = server.stub().Watch(&context, watch);
  v1::WatchEvent event;
  EXPECT_FALSE(reader->Read(&event));
  return reader->Finish();
}

class OracleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new InProcessServer({config::ResourceConfig{.resource = "configmaps"}});
    server_->WaitSynced();
  }
  static void TearDownTestSuite() { delete server_; }
  static InProcessServer* server_;
};
InProcessServer* OracleTest::server_ = nullptr;

TEST_F(OracleTest, ListWithSelectorsEqualsTheApiserversList) {
  std::string ns = CreateTestNamespace("oracle-list");
  Churn(ns, 120, 1);
  // The version of a ConfigMap write, not a LIST's: a LIST's version may be
  // another test's write of another resource, which a configmaps cache
  // reaches only with the apiserver's next bookmark.
  const std::string rv = CreateConfigMap(ns, "last-write", {});
  for (const char* selector : kSelectors) {
    EXPECT_EQ(InformerdList(*server_, ns, selector, rv), ApiList(ns, selector))
        << "selector \"" << selector << "\"";
  }
}

TEST_F(OracleTest, WatchFromAVersionYieldsTheApiserversEvents) {
  std::string ns = CreateTestNamespace("oracle-watch");
  std::string start_rv = CreateConfigMap(ns, "seed", {{"app", "a"}});
  Churn(ns, 80, 2);
  const WatchCase cases[] = {{"", "marker-all", {}},
                             {"app=a", "marker-app", {{"app", "a"}}},
                             {"tier in (x,y)", "marker-tier", {{"tier", "y"}}},
                             {"!tier", "marker-no-tier", {}}};
  for (const WatchCase& c : cases) CreateConfigMap(ns, c.marker, c.labels);
  for (const WatchCase& c : cases) {
    const std::string selector = c.selector;
    const std::string marker = c.marker;
    std::vector<Seen> expected = ApiWatch(ns, selector, start_rv, marker);
    std::vector<Seen> actual = InformerdWatch(*server_, ns, selector, start_rv, marker);
    EXPECT_EQ(actual, expected) << "selector \"" << selector << "\"";
    EXPECT_FALSE(actual.empty());
  }
}

TEST_F(OracleTest, PagesComeFromOneSnapshotWhileObjectsChange) {
  std::string ns = CreateTestNamespace("oracle-pages");
  std::string rv;
  // The version of the last ConfigMap write, not the LIST's: see
  // ListWithSelectorsEqualsTheApiserversList.
  for (int i = 0; i < 30; ++i) rv = CreateConfigMap(ns, absl::StrCat("p-", 100 + i), {});
  std::vector<Item> at_start = ApiList(ns, "");
  v1::ListRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  request.set_limit(7);
  request.set_resource_version(rv);
  std::vector<Item> paged;
  std::string snapshot_rv;
  int pages = 0;
  do {
    v1::ListResponse response;
    grpc::ClientContext context;
    grpc::Status status = server_->stub().List(&context, request, &response);
    ASSERT_TRUE(status.ok()) << "page " << pages << ": " << status.error_message();
    if (pages == 0) snapshot_rv = response.resource_version();
    EXPECT_EQ(response.resource_version(), snapshot_rv);
    for (const auto& object : response.items()) paged.emplace_back(object.name(), object.resource_version());
    // Change the namespace between pages: the pages must not notice.
    UpdateConfigMap(ns, absl::StrCat("p-", 100 + pages * 3), {{"changed", "yes"}}, "new");
    DeleteConfigMap(ns, absl::StrCat("p-", 129 - pages));
    CreateConfigMap(ns, absl::StrCat("p-0", pages), {});
    request.set_continue_token(response.continue_token());
    ++pages;
  } while (!request.continue_token().empty() && pages < 20);
  EXPECT_EQ(pages, 5);
  // The apiserver's own list at the snapshot's version is the reference.
  rapidjson::Document exact = ApiGet(absl::StrCat("/api/v1/namespaces/", ns, "/configmaps?resourceVersion=",
                                                  snapshot_rv, "&resourceVersionMatch=Exact"));
  std::vector<Item> expected;
  for (const auto& item : exact["items"].GetArray()) {
    expected.emplace_back(item["metadata"]["name"].GetString(), item["metadata"]["resourceVersion"].GetString());
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(paged, expected);
  EXPECT_EQ(paged.size(), at_start.size());
}

TEST_F(OracleTest, GetReadsItsOwnWrite) {
  std::string ns = CreateTestNamespace("oracle-get");
  std::string rv = CreateConfigMap(ns, "mine", {{"k", "v"}});
  v1::GetRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  request.set_name("mine");
  request.set_min_resource_version(rv);
  v1::GetResponse response;
  grpc::ClientContext context;
  grpc::Status status = server_->stub().Get(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.object().resource_version(), rv);
  EXPECT_EQ(response.object().labels().at("k"), "v");
  EXPECT_EQ(response.object().json().find("managedFields"), std::string::npos);

  request.set_name("absent");
  grpc::ClientContext again;
  EXPECT_EQ(server_->stub().Get(&again, request, &response).error_code(), grpc::StatusCode::NOT_FOUND);
}

rapidjson::Document ParseJson(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  EXPECT_FALSE(document.HasParseError()) << json;
  return document;
}

// What informerd serves of an object the apiserver GETs as `api`: all of it
// but metadata.managedFields (cut by the default configuration).
void CutManagedFields(rapidjson::Document& api) {
  api["metadata"].RemoveMember("managedFields");
}

std::string Dump(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return buffer.GetString();
}

v1::GetResponse InformerdGet(InProcessServer& server, const std::string& ns,
                             const std::string& name, const std::string& min_rv,
                             v1::Projection projection) {
  v1::GetRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  request.set_name(name);
  request.set_min_resource_version(min_rv);
  request.set_projection(projection);
  v1::GetResponse response;
  grpc::ClientContext context;
  grpc::Status status = server.stub().Get(&context, request, &response);
  EXPECT_TRUE(status.ok()) << name << ": " << status.error_message();
  return response;
}

// Objects that came into the cache by the upstream LIST (whose items lack
// apiVersion and kind), by its initial events, and by WATCH events are all
// whole: each equals the apiserver's GET, through Get and List alike; the
// metadata projection is the GET's apiVersion, kind and metadata.
TEST(OracleWholeObjects, EveryObjectEqualsTheApiserversGetWhicheverPathBroughtIt) {
  for (config::UpstreamList mode : {config::UpstreamList::kPaged, config::UpstreamList::kStream}) {
    const bool streaming_list = mode == config::UpstreamList::kStream;
    SCOPED_TRACE(streaming_list ? "upstream streaming list" : "upstream paged LIST");
    std::string ns = CreateTestNamespace("oracle-whole");
    std::vector<std::string> names;
    for (int i = 0; i < 3; ++i) {
      names.push_back(absl::StrCat("listed-", i));
      CreateConfigMap(ns, names.back(), {{"app", "a"}}, absl::StrCat("before ", i));
    }
    InProcessServerOptions options;
    options.config.upstream_list = mode;
    InProcessServer server({config::ResourceConfig{.resource = "configmaps", .namespace_ = ns}},
                           options);
    server.WaitSynced();
    std::string rv;
    for (int i = 0; i < 3; ++i) {
      names.push_back(absl::StrCat("watched-", i));
      rv = CreateConfigMap(ns, names.back(), {{"app", "b"}}, absl::StrCat("after ", i));
    }
    rv = UpdateConfigMap(ns, "watched-0", {{"app", "c"}}, "updated");

    v1::ListResponse listed = InformerdListResponse(server, ns, "", rv);
    ASSERT_EQ(listed.items_size(), static_cast<int>(names.size()));
    std::map<std::string, std::string> list_json;
    for (const auto& item : listed.items()) list_json[item.name()] = item.json();

    for (const std::string& name : names) {
      SCOPED_TRACE(name);
      rapidjson::Document api = ApiGet(absl::StrCat("/api/v1/namespaces/", ns, "/configmaps/", name));
      CutManagedFields(api);
      v1::GetResponse got = InformerdGet(server, ns, name, rv, v1::PROJECTION_FULL);
      rapidjson::Document served = ParseJson(got.object().json());
      EXPECT_TRUE(served == api) << "informerd: " << got.object().json() << "\napiserver: "
                                 << Dump(api);
      rapidjson::Document from_list = ParseJson(list_json[name]);
      EXPECT_TRUE(from_list == api) << "informerd List: " << list_json[name];

      v1::GetResponse partial = InformerdGet(server, ns, name, rv, v1::PROJECTION_METADATA);
      rapidjson::Document metadata_only = ParseJson(partial.object().json());
      ASSERT_TRUE(metadata_only.IsObject());
      EXPECT_EQ(metadata_only.MemberCount(), 3u) << partial.object().json();
      EXPECT_TRUE(metadata_only["apiVersion"] == api["apiVersion"]);
      EXPECT_TRUE(metadata_only["kind"] == api["kind"]);
      EXPECT_TRUE(metadata_only["metadata"] == api["metadata"]) << partial.object().json();
      EXPECT_EQ(partial.object().resource_version(), got.object().resource_version());
    }
  }
}

TEST_F(OracleTest, InitialEventsEqualTheListThenBookmarkThenLiveEvents) {
  std::string ns = CreateTestNamespace("oracle-initial");
  std::string last_write;
  for (int i = 0; i < 12; ++i) {
    last_write = CreateConfigMap(ns, absl::StrCat("i-", i), {{"app", i % 2 ? "a" : "b"}});
  }
  grpc::ClientContext context;
  auto reader = InformerdWatchList(*server_, &context, ns, "app=a", last_write);
  v1::WatchEvent event;
  std::vector<Item> initial = ReadInitialEvents(*reader, &event);
  ASSERT_EQ(event.type(), v1::WatchEvent::BOOKMARK);
  EXPECT_TRUE(event.initial_events_end());
  EXPECT_EQ(initial, ApiList(ns, "app=a"));
  std::string rv = CreateConfigMap(ns, "live", {{"app", "a"}});
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.type(), v1::WatchEvent::ADDED);
  EXPECT_EQ(event.object().name(), "live");
  EXPECT_EQ(event.resource_version(), rv);
  context.TryCancel();
  reader->Finish();
}

// A Reflector that tried a streaming list first: it streamed where the
// apiserver serves one (`api`, the apiserver's own answer to one), and
// listed after a refusal where it does not.
void ExpectStreamedWhereServedListedWhereRefused(const ApiWatchList& api,
                                                 const kube::ReflectorStats& stats) {
  if (api.http_status == 200) {
    EXPECT_TRUE(api.initial_events_end);
    EXPECT_GE(stats.streamed_lists.load(), 1u);
    EXPECT_EQ(stats.streaming_list_refused.load(), 0u);
    EXPECT_EQ(stats.list_pages.load(), 0u);
  } else {
    // Refused as a bad request, not as a failure of the server.
    EXPECT_TRUE(api.http_status == 400 || api.http_status == 422)
        << api.http_status << " " << api.refusal;
    EXPECT_EQ(stats.streamed_lists.load(), 0u);
    EXPECT_EQ(stats.streaming_list_refused.load(), 1u);
    EXPECT_GE(stats.list_pages.load(), 1u);
  }
  EXPECT_GE(stats.lists.load(), 1u);
}

// By default (--upstream-list=auto) informerd reads its upstream state the
// way that costs the apiserver it talks to least: LISTs where it encodes
// them as it streams them (1.33 and later: 1.37 here), a streaming list
// where it does not; and a streaming list's refusal (1.20) leads to paged
// LISTs.
TEST_F(OracleTest, UpstreamStateComesByListWhereTheApiserverStreamsListEncoding) {
  absl::StatusOr<kube::ServerVersion> version =
      kube::ParseServerVersion(Dump(ApiGet("/version")));
  ASSERT_TRUE(version.ok()) << version.status();
  std::string ns = CreateTestNamespace("oracle-upstream");
  CreateConfigMap(ns, "one", {});
  const ApiWatchList api = StreamingListFromApiserver(ns, "");
  const kube::ReflectorStats& stats = server_->registry().all().front()->reflector->stats();
  if (version->StreamsListEncoding()) {
    EXPECT_EQ(stats.streamed_lists.load(), 0u);
    EXPECT_EQ(stats.streaming_list_refused.load(), 0u);
    EXPECT_GE(stats.list_pages.load(), 1u);
    EXPECT_GE(stats.lists.load(), 1u);
  } else {
    ExpectStreamedWhereServedListedWhereRefused(api, stats);
  }
}

// With --upstream-list=stream informerd reads its upstream state by a
// streaming list where the apiserver serves one (1.34 and later by
// default), paged LISTs where it refuses (1.20).
TEST(OracleUpstreamList, StreamingListWhereTheApiserverServesIt) {
  std::string ns = CreateTestNamespace("oracle-upstream-stream");
  CreateConfigMap(ns, "one", {});
  InProcessServerOptions options;
  options.config.upstream_list = config::UpstreamList::kStream;
  InProcessServer server({config::ResourceConfig{.resource = "configmaps", .namespace_ = ns}},
                         options);
  server.WaitSynced();
  const ApiWatchList api = StreamingListFromApiserver(ns, "");
  ExpectStreamedWhereServedListedWhereRefused(
      api, server.registry().all().front()->reflector->stats());
}

// informerd serves WatchList on every version (from its own cache). Where
// the apiserver streams one too, both give the same initial objects and end
// them with the same bookmark annotation, at a version not older than asked.
TEST_F(OracleTest, InitialEventsEqualTheApiserversStreamingList) {
  std::string ns = CreateTestNamespace("oracle-watchlist");
  std::string last_write;
  for (int i = 0; i < 9; ++i) {
    last_write = CreateConfigMap(ns, absl::StrCat("w-", i), {{"app", i % 3 ? "a" : "b"}});
  }
  DeleteConfigMap(ns, "w-4");
  last_write = UpdateConfigMap(ns, "w-5", {{"app", "b"}}, "moved");
  const ApiWatchList api = StreamingListFromApiserver(ns, "app=a");

  grpc::ClientContext context;
  auto reader = InformerdWatchList(*server_, &context, ns, "app=a", last_write);
  v1::WatchEvent event;
  const std::vector<Item> initial = ReadInitialEvents(*reader, &event);
  context.TryCancel();
  reader->Finish();
  ASSERT_EQ(event.type(), v1::WatchEvent::BOOKMARK);
  EXPECT_TRUE(event.initial_events_end());
  EXPECT_GE(std::stoull(event.resource_version()), std::stoull(last_write));
  EXPECT_EQ(initial, ApiList(ns, "app=a"));
  if (api.http_status == 200) {
    EXPECT_EQ(initial, api.initial);
    EXPECT_TRUE(api.initial_events_end);
    EXPECT_GE(std::stoull(api.end_resource_version), std::stoull(last_write));
  }
}

// A process started after the client's last event (a restart, another
// replica) has no history before its first list: the client's resume point
// is backfilled from the apiserver, and the events are the apiserver's own.
TEST(OracleBackfill, ResumeFromBeforeTheFirstListYieldsTheApiserversEvents) {
  std::string ns = CreateTestNamespace("oracle-backfill");
  std::string start_rv = CreateConfigMap(ns, "seed", {{"app", "a"}});
  Churn(ns, 60, 3);
  InProcessServer server({config::ResourceConfig{.resource = "configmaps", .namespace_ = ns}});
  server.WaitSynced();
  service::ServedResource* served = server.registry().all().at(0);
  ASSERT_GT(served->informer->stats().oldest_resource_version, std::stoull(start_rv))
      << "the new server's history must begin after the client's version";
  const WatchCase cases[] = {{"", "marker-all", {}},
                             {"app=a", "marker-app", {{"app", "a"}}},
                             {"tier in (x,y)", "marker-tier", {{"tier", "y"}}}};
  for (const WatchCase& c : cases) CreateConfigMap(ns, c.marker, c.labels);
  for (const WatchCase& c : cases) {
    std::vector<Seen> expected = ApiWatch(ns, c.selector, start_rv, c.marker);
    std::vector<Seen> actual = InformerdWatch(server, ns, c.selector, start_rv, c.marker);
    EXPECT_EQ(actual, expected) << "selector \"" << c.selector << "\"";
    EXPECT_GT(actual.size(), 10u);
  }
  EXPECT_LE(served->informer->stats().oldest_resource_version, std::stoull(start_rv));
  // One run served every resume from that version.
  EXPECT_EQ(served->backfill->runs(), 1u);
}

// A watch from a version informerd's history no longer holds fails as the
// apiserver's does: its 410 Expired "too old resource version: RV (OLDEST)"
// is informerd's OUT_OF_RANGE with the same message form. The apiserver's
// own history begins at its start, informerd's at its first list, so the
// apiserver may still hold version 1 (1.37's watch cache keeps every event
// of a young cluster): then informerd backfills and there is nothing to
// compare.
TEST_F(OracleTest, TooOldResourceVersionAnswersAsTheApiserver) {
  std::string ns = CreateTestNamespace("oracle-too-old");
  CreateConfigMap(ns, "x", {});
  std::string first_type, api_message, api_reason;
  int api_code = 0;
  // A Status object, in an ERROR event or as an error response's body.
  auto read_status = [&](const rapidjson::Value& status) {
    api_message = status["message"].GetString();
    api_code = status["code"].GetInt();
    api_reason = status["reason"].GetString();
  };
  kube::WatchDecoder decoder;
  auto response = AdminClient().Stream(
      absl::StrCat("/api/v1/namespaces/", ns, "/configmaps?watch=1&resourceVersion=1&timeoutSeconds=5"),
      [&](std::string_view chunk) {
        absl::Status fed = decoder.Feed(chunk, [&](std::string* frame) {
          if (!first_type.empty()) return absl::OkStatus();
          rapidjson::Document doc;
          doc.Parse(frame->data(), frame->size());
          first_type = doc["type"].GetString();
          if (first_type == "ERROR") read_status(doc["object"]);
          return absl::OkStatus();
        });
        EXPECT_TRUE(fed.ok()) << fed;
        return first_type.empty();
      });
  ASSERT_TRUE(response.ok()) << response.status();
  if (response->status != 200) {
    rapidjson::Document status;
    status.Parse(response->body.data(), response->body.size());
    first_type = "ERROR";
    read_status(status);
  }
  if (first_type != "ERROR") {
    // informerd would backfill what the apiserver still has (OracleBackfill).
    std::cout << "the apiserver still holds version 1 (its first event: " << first_type
              << "); nothing to compare\n";
    return;
  }
  EXPECT_EQ(api_code, 410);
  EXPECT_EQ(api_reason, "Expired");
  EXPECT_EQ(api_message.rfind("too old resource version: 1 (", 0), 0u) << api_message;

  grpc::Status status = RefusedWatch(*server_, ns, "1");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::OUT_OF_RANGE);
  EXPECT_EQ(status.error_message().rfind("too old resource version: 1 (", 0), 0u)
      << status.error_message();
}

TEST_F(OracleTest, BadRequestsGetClearErrors) {
  struct Case {
    std::string resource, label_selector, field_selector, rv, token;
    grpc::StatusCode code;
    std::string message;
  } cases[] = {
      {"configmaps", "app in (a", "", "", "", grpc::StatusCode::INVALID_ARGUMENT, "label_selector"},
      {"configmaps", "", "spec.nodeName=x", "", "", grpc::StatusCode::INVALID_ARGUMENT, "field_selector"},
      {"configmaps", "", "", "12abc", "", grpc::StatusCode::INVALID_ARGUMENT, "resource_version"},
      {"configmaps", "", "", "", "garbage!", grpc::StatusCode::INVALID_ARGUMENT, "continue_token"},
      {"widgets", "", "", "", "", grpc::StatusCode::NOT_FOUND, "widgets is not served"},
      {"", "", "", "", "", grpc::StatusCode::INVALID_ARGUMENT, "resource.resource"},
  };
  for (const Case& c : cases) {
    v1::ListRequest request;
    request.mutable_resource()->set_resource(c.resource);
    request.set_label_selector(c.label_selector);
    request.set_field_selector(c.field_selector);
    request.set_resource_version(c.rv);
    request.set_continue_token(c.token);
    v1::ListResponse response;
    grpc::ClientContext context;
    grpc::Status status = server_->stub().List(&context, request, &response);
    EXPECT_EQ(status.error_code(), c.code) << status.error_message();
    EXPECT_NE(status.error_message().find(c.message), std::string::npos) << status.error_message();
  }
}

}  // namespace
}  // namespace informerd::testing
