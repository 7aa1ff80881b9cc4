// Tiers: a leaf informerd whose upstream is a root informerd (over the v1
// API) serves what the root serves, with the root's resourceVersions, so a
// client cannot tell the two apart; the apiserver is the judge of both. The
// leaf rides out a root restart and a cut stream without cutting its own
// watchers. The reader's other faults are unit-tested against a scripted
// root (server/tier/informerd_reader_test.cc).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rapidjson/document.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/tier/informerd_upstream.h"
#include "server/tls/server_credentials.h"
#include "tests/certificates/test_certificates.h"
#include "tests/integration/informerd_process.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

constexpr absl::Duration kWait = absl::Seconds(60);

config::ResourceConfig ConfigMapsIn(const std::string& ns, const std::string& labels = "") {
  return config::ResourceConfig{.resource = "configmaps", .namespace_ = ns,
                                .label_selector = labels};
}

InProcessServerOptions FastBookmarks() {
  InProcessServerOptions options;
  options.config.bookmark_interval = absl::Seconds(1);
  return options;
}

std::unique_ptr<tier::InformerdUpstream> UpstreamAt(int port) {
  absl::StatusOr<std::unique_ptr<tier::InformerdUpstream>> upstream =
      tier::InformerdUpstream::Create(
          config::UpstreamConfig{.url = absl::StrCat("grpc://127.0.0.1:", port)});
  EXPECT_TRUE(upstream.ok()) << upstream.status();
  return upstream.ok() ? *std::move(upstream) : nullptr;
}

// Made before the leaf's server, which reads through it.
struct LeafUpstream {
  std::unique_ptr<tier::InformerdUpstream> upstream;
};

// An in-process leaf serving `resource` from another informerd through
// `upstream`, synced. ok() is false when there is no upstream (it could not
// be made): the leaf then reads the apiserver.
class Leaf : private LeafUpstream, public InProcessServer {
 public:
  Leaf(std::unique_ptr<tier::InformerdUpstream> upstream, const config::ResourceConfig& resource,
       InProcessServerOptions options = FastBookmarks())
      : LeafUpstream{std::move(upstream)},
        InProcessServer({resource}, Through(this->upstream.get(), std::move(options))) {
    WaitSynced();
  }

  bool ok() const { return upstream != nullptr; }

 private:
  static InProcessServerOptions Through(tier::InformerdUpstream* upstream,
                                        InProcessServerOptions options) {
    options.upstream = upstream;
    return options;
  }
};

uint64_t Version(const std::string& text) {
  uint64_t version = 0;
  EXPECT_TRUE(absl::SimpleAtoi(text, &version)) << text;
  return version;
}

// A List's items as "ns/name rv" -> json, and its resourceVersion.
struct ListResult {
  std::map<std::string, std::string> items;
  std::string resource_version;
  bool operator==(const ListResult& other) const {
    return items == other.items && resource_version == other.resource_version;
  }
};

ListResult List(v1::Cache::Stub& stub, const std::string& ns) {
  v1::ListRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  v1::ListResponse response;
  grpc::ClientContext context;
  grpc::Status status = stub.List(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  ListResult result;
  result.resource_version = response.resource_version();
  for (const v1::Object& item : response.items()) {
    result.items[absl::StrCat(item.namespace_(), "/", item.name(), " ", item.resource_version())] =
        item.json();
  }
  EXPECT_TRUE(response.continue_token().empty());
  return result;
}

// Polls until the leaf's List equals the root's (items, json and
// resourceVersion), which it does once the root's last version reached the
// leaf (by event or by bookmark); returns the last pair compared.
std::pair<ListResult, ListResult> SameLists(InProcessServer& root, InProcessServer& leaf,
                                            const std::string& ns) {
  const absl::Time deadline = absl::Now() + kWait;
  std::pair<ListResult, ListResult> lists;
  do {
    lists = {List(root.stub(), ns), List(leaf.stub(), ns)};
    if (lists.first == lists.second) break;
    absl::SleepFor(absl::Milliseconds(100));  // polling a condition with a deadline
  } while (absl::Now() < deadline);
  return lists;
}

// The apiserver's LIST as the List's keys ("ns/name rv").
std::vector<std::string> ApiserverKeys(const std::string& ns) {
  std::vector<std::string> keys;
  for (const auto& [key, rv] : ListConfigMaps(ns)) keys.push_back(absl::StrCat(key, " ", rv));
  return keys;
}

std::vector<std::string> Keys(const ListResult& list) {
  std::vector<std::string> keys;
  for (const auto& [key, json] : list.items) keys.push_back(key);
  return keys;
}

class Watch {
 public:
  Watch(v1::Cache::Stub& stub, const std::string& ns, const std::string& resource_version,
        bool initial_events = false, bool bookmarks = false) {
    v1::WatchRequest request;
    request.mutable_resource()->set_resource("configmaps");
    request.set_namespace_(ns);
    request.set_resource_version(resource_version);
    request.set_send_initial_events(initial_events);
    request.set_allow_bookmarks(bookmarks);
    context_.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(180));
    stream_ = stub.Watch(&context_, request);
  }
  ~Watch() {
    context_.TryCancel();
    stream_->Finish();
  }

  // The next event (bookmarks included); fails the test when the stream ends.
  v1::WatchEvent Next() {
    v1::WatchEvent event;
    if (!stream_->Read(&event)) {
      ADD_FAILURE() << "the watch ended: " << stream_->Finish().error_message();
    }
    return event;
  }

  // The next `n` events other than bookmarks.
  std::vector<v1::WatchEvent> Events(size_t n) {
    std::vector<v1::WatchEvent> events;
    while (events.size() < n) {
      v1::WatchEvent event = Next();
      if (event.type() == v1::WatchEvent::TYPE_UNSPECIFIED) break;  // ended
      if (event.type() != v1::WatchEvent::BOOKMARK) events.push_back(std::move(event));
    }
    return events;
  }

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> stream_;
};

std::string Describe(const v1::WatchEvent& event) {
  return absl::StrCat(v1::WatchEvent::Type_Name(event.type()), " ", event.object().namespace_(),
                      "/", event.object().name(), " ", event.object().resource_version(), " @",
                      event.resource_version(), event.final_state_unknown() ? " unknown" : "");
}

std::vector<std::string> Describe(const std::vector<v1::WatchEvent>& events) {
  std::vector<std::string> lines;
  for (const v1::WatchEvent& event : events) lines.push_back(Describe(event));
  return lines;
}

const kube::ReflectorStats& ReaderStats(InProcessServer& server) {
  return server.registry().all().front()->reflector->stats();
}

service::ServedResource& ServedResourceOf(InProcessServer& server) {
  return *server.registry().all().front();
}

informer::Informer& InformerOf(InProcessServer& server) {
  return *ServedResourceOf(server).informer;
}

TEST(TierTest, ALeafServesTheRootsListAndWatchWithTheApiserversVersions) {
  const std::string ns = CreateTestNamespace("tier");
  CreateConfigMap(ns, "a", {{"app", "x"}});
  CreateConfigMap(ns, "b", {});
  CreateConfigMap(ns, "c", {});
  InProcessServer root({ConfigMapsIn(ns)}, FastBookmarks());
  root.WaitSynced();
  Leaf leaf(UpstreamAt(root.port()), ConfigMapsIn(ns));
  ASSERT_TRUE(leaf.ok());

  auto [root_list, leaf_list] = SameLists(root, leaf, ns);
  EXPECT_EQ(leaf_list, root_list);
  EXPECT_EQ(Keys(leaf_list), ApiserverKeys(ns));
  EXPECT_EQ(ReaderStats(leaf).lists.load(), 1u);

  // The same events from the same version, as the apiserver's writes made them.
  const std::string from = leaf_list.resource_version;
  Watch root_watch(root.stub(), ns, from);
  Watch leaf_watch(leaf.stub(), ns, from);
  const std::string d = CreateConfigMap(ns, "d", {});
  const std::string a = UpdateConfigMap(ns, "a", {{"app", "y"}}, "changed");
  DeleteConfigMap(ns, "b");
  const std::string e = CreateConfigMap(ns, "e", {{"app", "x"}});
  std::vector<v1::WatchEvent> root_events = root_watch.Events(4);
  std::vector<v1::WatchEvent> leaf_events = leaf_watch.Events(4);
  ASSERT_EQ(root_events.size(), 4u);
  ASSERT_EQ(leaf_events.size(), 4u);
  const std::string b = root_events[2].resource_version();
  EXPECT_EQ(Describe(root_events),
            (std::vector<std::string>{
                absl::StrCat("ADDED ", ns, "/d ", d, " @", d),
                absl::StrCat("MODIFIED ", ns, "/a ", a, " @", a),
                absl::StrCat("DELETED ", ns, "/b ", b, " @", b),
                absl::StrCat("ADDED ", ns, "/e ", e, " @", e),
            }));
  EXPECT_GT(Version(b), Version(a));
  EXPECT_LT(Version(b), Version(e));
  EXPECT_EQ(Describe(leaf_events), Describe(root_events));
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(leaf_events[i].object().json(), root_events[i].object().json()) << i;
  }

  // WatchList: the same initial objects.
  std::tie(root_list, leaf_list) = SameLists(root, leaf, ns);
  EXPECT_EQ(leaf_list, root_list);
  EXPECT_EQ(Keys(leaf_list), ApiserverKeys(ns));
  Watch root_initial(root.stub(), ns, "", /*initial_events=*/true, /*bookmarks=*/true);
  Watch leaf_initial(leaf.stub(), ns, "", /*initial_events=*/true, /*bookmarks=*/true);
  for (Watch* watch : {&root_initial, &leaf_initial}) {
    std::map<std::string, std::string> initial;
    while (true) {
      v1::WatchEvent event = watch->Next();
      if (event.type() == v1::WatchEvent::BOOKMARK && event.initial_events_end()) break;
      ASSERT_EQ(event.type(), v1::WatchEvent::ADDED) << Describe(event);
      initial[absl::StrCat(event.object().namespace_(), "/", event.object().name(), " ",
                           event.object().resource_version())] = event.object().json();
    }
    EXPECT_EQ(initial, root_list.items);
  }
}

// A leaf of a leaf: tiers compose, with the apiserver's versions all the way.
TEST(TierTest, ALeafOfALeafServesTheSameEvents) {
  const std::string ns = CreateTestNamespace("tier-3");
  CreateConfigMap(ns, "a", {});
  InProcessServer root({ConfigMapsIn(ns)}, FastBookmarks());
  root.WaitSynced();
  Leaf middle(UpstreamAt(root.port()), ConfigMapsIn(ns));
  ASSERT_TRUE(middle.ok());
  Leaf leaf(UpstreamAt(middle.port()), ConfigMapsIn(ns));
  ASSERT_TRUE(leaf.ok());

  Watch watch(leaf.stub(), ns, "", /*initial_events=*/true);
  std::vector<v1::WatchEvent> initial = watch.Events(1);
  ASSERT_EQ(initial.size(), 1u);
  EXPECT_EQ(Keys(List(leaf.stub(), ns)), ApiserverKeys(ns));
  const std::string b = CreateConfigMap(ns, "b", {});
  const std::string a = UpdateConfigMap(ns, "a", {}, "changed");
  EXPECT_EQ(Describe(watch.Events(2)),
            (std::vector<std::string>{absl::StrCat("ADDED ", ns, "/b ", b, " @", b),
                                      absl::StrCat("MODIFIED ", ns, "/a ", a, " @", a)}));
  auto [root_list, leaf_list] = SameLists(root, leaf, ns);
  EXPECT_EQ(leaf_list, root_list);
}

TEST(TierTest, TheRootsBookmarksAdvanceTheLeaf) {
  const std::string ns = CreateTestNamespace("tier-bm");
  CreateConfigMap(ns, "shown", {{"tier", "leaf"}});
  InProcessServer root({ConfigMapsIn(ns)}, FastBookmarks());
  root.WaitSynced();
  // The leaf's selector hides what follows: only the root's bookmarks can
  // bring the leaf to its version.
  Leaf leaf(UpstreamAt(root.port()), ConfigMapsIn(ns, "tier=leaf"));
  ASSERT_TRUE(leaf.ok());
  const std::string hidden = CreateConfigMap(ns, "hidden", {});
  ASSERT_TRUE(InformerOf(leaf).WaitForVersion(Version(hidden), kWait))
      << "the leaf stayed at " << InformerOf(leaf).resource_version();
  EXPECT_GE(ReaderStats(leaf).bookmarks.load(), 1u);
  EXPECT_EQ(ReaderStats(leaf).events.load(), 0u);
  // ... and its own watchers' bookmarks carry it.
  Watch watch(leaf.stub(), ns, hidden, false, /*bookmarks=*/true);
  v1::WatchEvent event = watch.Next();
  EXPECT_EQ(event.type(), v1::WatchEvent::BOOKMARK);
  EXPECT_GE(Version(event.resource_version()), Version(hidden));
  ListResult list = List(leaf.stub(), ns);
  EXPECT_EQ(Keys(list), (std::vector<std::string>{absl::StrCat(ns, "/shown ",
                                                               ListConfigMaps(ns)[ns + "/shown"])}));
}

// The root goes away; what changes meanwhile reaches the leaf's watcher
// once a new root serves again. The leaf's version is older than the new
// root's first list: with the root's history backfill (the default) the
// leaf resumes and passes on the apiserver's own events; without it the
// root answers OUT_OF_RANGE and the leaf gets the state again, by diff.
void RootRestart(bool root_backfills) {
  const std::string ns = CreateTestNamespace("tier-rs");
  CreateConfigMap(ns, "a", {});
  const std::string c = CreateConfigMap(ns, "c", {});
  InProcessServerOptions root_options = FastBookmarks();
  root_options.config.history_backfill = root_backfills;
  auto root = std::make_unique<InProcessServer>(std::vector{ConfigMapsIn(ns)}, root_options);
  root->WaitSynced();
  const int port = root->port();
  Leaf leaf(UpstreamAt(port), ConfigMapsIn(ns));
  ASSERT_TRUE(leaf.ok());
  // The watch starts where the leaf holds c: a version read before the
  // leaf got there would make c's own ADDED the first event.
  ASSERT_TRUE(InformerOf(leaf).WaitForVersion(Version(c), kWait));
  Watch watch(leaf.stub(), ns, absl::StrCat(InformerOf(leaf).resource_version()));

  root.reset();
  DeleteConfigMap(ns, "c");
  const std::string f = CreateConfigMap(ns, "f", {});
  root_options.port = port;
  root = std::make_unique<InProcessServer>(std::vector{ConfigMapsIn(ns)}, root_options);
  root->WaitSynced();

  std::vector<v1::WatchEvent> events = watch.Events(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type(), v1::WatchEvent::DELETED) << Describe(events[0]);
  EXPECT_EQ(events[0].object().name(), "c");
  EXPECT_EQ(Describe(events[1]).substr(0, Describe(events[1]).find(" @")),
            absl::StrCat("ADDED ", ns, "/f ", f));
  if (root_backfills) {
    EXPECT_FALSE(events[0].final_state_unknown());
    EXPECT_EQ(ReaderStats(leaf).relists.load(), 0u);
    EXPECT_EQ(ReaderStats(leaf).expired_410.load(), 0u);
  } else {
    EXPECT_TRUE(events[0].final_state_unknown());
    EXPECT_GE(ReaderStats(leaf).relists.load(), 1u);
    EXPECT_GE(ReaderStats(leaf).expired_410.load(), 1u);
  }

  // Live again, on the same watch.
  const std::string a = UpdateConfigMap(ns, "a", {}, "after");
  events = watch.Events(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(Describe(events[0]), absl::StrCat("MODIFIED ", ns, "/a ", a, " @", a));
  auto [root_list, leaf_list] = SameLists(*root, leaf, ns);
  EXPECT_EQ(leaf_list, root_list);
  EXPECT_EQ(Keys(leaf_list), ApiserverKeys(ns));
}

TEST(TierTest, TheLeafResumesOnARestartedRootThatBackfills) { RootRestart(true); }

TEST(TierTest, TheLeafRelistsByDiffWhenARestartedRootCannotResumeIt) { RootRestart(false); }

TEST(TierTest, TheRootsRelistReachesTheLeafsWatchersAsTheSameDiff) {
  const std::string ns = CreateTestNamespace("tier-relist");
  CreateConfigMap(ns, "a", {});
  CreateConfigMap(ns, "b", {});
  InProcessServer root({ConfigMapsIn(ns)}, FastBookmarks());
  root.WaitSynced();
  Leaf leaf(UpstreamAt(root.port()), ConfigMapsIn(ns));
  ASSERT_TRUE(leaf.ok());
  const std::string from = absl::StrCat(InformerOf(leaf).resource_version());
  Watch root_watch(root.stub(), ns, from);
  Watch leaf_watch(leaf.stub(), ns, from);

  // The root's watch is gone (as after a 410) while things change; then it
  // lists again, here by hand from the apiserver's LIST, as its Reflector
  // would: its Informer turns the list into one batch of diff events.
  ServedResourceOf(root).reflector->Stop();
  const std::string a = UpdateConfigMap(ns, "a", {}, "changed");
  DeleteConfigMap(ns, "b");
  const std::string c = CreateConfigMap(ns, "c", {});
  rapidjson::Document list = ApiGet(absl::StrCat("/api/v1/namespaces/", ns, "/configmaps"));
  informer::Informer& root_informer = InformerOf(root);
  root_informer.OnListStart();
  for (rapidjson::Value& item : list["items"].GetArray()) root_informer.OnListItem(item);
  root_informer.OnListEnd(list["metadata"]["resourceVersion"].GetString());
  const std::string listed = list["metadata"]["resourceVersion"].GetString();

  std::vector<v1::WatchEvent> root_events = root_watch.Events(3);
  std::vector<v1::WatchEvent> leaf_events = leaf_watch.Events(3);
  ASSERT_EQ(root_events.size(), 3u);
  ASSERT_EQ(leaf_events.size(), 3u);
  // Type, object and final_state_unknown alike; the last event of each
  // batch carries the list's version (the others the version before it).
  auto without_version = [](const v1::WatchEvent& event) {
    std::string line = Describe(event);
    return line.erase(line.find(" @"), line.find(' ', line.find(" @") + 1) - line.find(" @"));
  };
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(without_version(leaf_events[i]), without_version(root_events[i])) << i;
    EXPECT_EQ(leaf_events[i].object().json(), root_events[i].object().json()) << i;
  }
  EXPECT_EQ(without_version(root_events[0]), absl::StrCat("MODIFIED ", ns, "/a ", a));
  EXPECT_EQ(root_events[1].type(), v1::WatchEvent::DELETED);
  EXPECT_TRUE(root_events[1].final_state_unknown());
  EXPECT_EQ(without_version(root_events[2]), absl::StrCat("ADDED ", ns, "/c ", c));
  EXPECT_EQ(root_events[2].resource_version(), listed);
  EXPECT_EQ(leaf_events[2].resource_version(), listed);
  EXPECT_EQ(ReaderStats(leaf).relists.load(), 1u);
  auto [root_list, leaf_list] = SameLists(root, leaf, ns);
  EXPECT_EQ(leaf_list, root_list);
  EXPECT_EQ(Keys(leaf_list), ApiserverKeys(ns));
}

TEST(TierTest, AStreamTheRootCutsIsResumedFromTheLastVersion) {
  const std::string ns = CreateTestNamespace("tier-cut");
  CreateConfigMap(ns, "a", {});
  // The root closes every connection after about 2 s (its max age), as a
  // root's connections are closed at maxConnectionAgeSeconds.
  InProcessServerOptions root_options = FastBookmarks();
  root_options.config.limits.transport.max_connection_age = absl::Seconds(2);
  root_options.config.limits.transport.max_connection_age_grace = absl::Seconds(1);
  InProcessServer root({ConfigMapsIn(ns)}, root_options);
  root.WaitSynced();
  Leaf leaf(UpstreamAt(root.port()), ConfigMapsIn(ns));
  ASSERT_TRUE(leaf.ok());
  Watch watch(leaf.stub(), ns, absl::StrCat(InformerOf(leaf).resource_version()));

  std::vector<std::string> expected;
  for (int i = 0; i < 3; ++i) {
    const uint64_t watches = ReaderStats(leaf).watches.load();
    const std::string version = CreateConfigMap(ns, absl::StrCat("n", i), {});
    expected.push_back(absl::StrCat("ADDED ", ns, "/n", i, " ", version, " @", version));
    // Wait for the root to cut the leaf's stream and the leaf to resume.
    const absl::Time deadline = absl::Now() + kWait;
    while (ReaderStats(leaf).watches.load() == watches && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(50));  // polling a condition with a deadline
    }
    ASSERT_GT(ReaderStats(leaf).watches.load(), watches) << "the root never cut the stream";
  }
  EXPECT_EQ(Describe(watch.Events(3)), expected);
  // Resumed each time, never listed again.
  EXPECT_EQ(ReaderStats(leaf).lists.load(), 1u);
  EXPECT_EQ(ReaderStats(leaf).relists.load(), 0u);
  auto [root_list, leaf_list] = SameLists(root, leaf, ns);
  EXPECT_EQ(leaf_list, root_list);
  EXPECT_EQ(Keys(leaf_list), ApiserverKeys(ns));
}

// The leaf trusts the root by --upstream-ca-file and shows it a client
// certificate (--upstream-cert-file) for the root's mTLS.
TEST(TierTest, ALeafReachesARootWithMutualTls) {
  MakeCa("tier-ca");
  MakeCa("tier-other-ca");
  MakeCert("tier-ca", "tier-root.key", "tier-root.crt");
  MakeCert("tier-ca", "tier-leaf.key", "tier-leaf.crt", "/CN=informerd-leaf");
  const std::string ns = CreateTestNamespace("tier-tls");
  CreateConfigMap(ns, "a", {});
  InProcessServerOptions root_options = FastBookmarks();
  root_options.config.tls = config::TlsConfig{CertPath("tier-root.crt"), CertPath("tier-root.key"),
                                              CertPath("tier-ca.crt"), absl::Seconds(60)};
  InProcessServer root({ConfigMapsIn(ns)}, root_options);
  root.WaitSynced();
  const std::string url = absl::StrCat("grpcs://127.0.0.1:", root.port());

  absl::StatusOr<std::unique_ptr<tier::InformerdUpstream>> upstream =
      tier::InformerdUpstream::Create(config::UpstreamConfig{
          .url = url, .ca_file = CertPath("tier-ca.crt"), .cert_file = CertPath("tier-leaf.crt"),
          .key_file = CertPath("tier-leaf.key")});
  ASSERT_TRUE(upstream.ok()) << upstream.status();
  Leaf leaf(*std::move(upstream), ConfigMapsIn(ns));
  EXPECT_EQ(Keys(List(leaf.stub(), ns)), ApiserverKeys(ns));
  EXPECT_EQ(ReaderStats(leaf).lists.load(), 1u);

  // Without the client certificate, or trusting another CA, the root is not
  // reached.
  for (const config::UpstreamConfig& wrong :
       {config::UpstreamConfig{.url = url, .ca_file = CertPath("tier-ca.crt")},
        config::UpstreamConfig{.url = url, .ca_file = CertPath("tier-other-ca.crt"),
                               .cert_file = CertPath("tier-leaf.crt"),
                               .key_file = CertPath("tier-leaf.key")}}) {
    absl::StatusOr<std::unique_ptr<tier::InformerdUpstream>> refused =
        tier::InformerdUpstream::Create(wrong);
    ASSERT_TRUE(refused.ok()) << refused.status();
    EXPECT_EQ((*refused)->Discover(ConfigMapsIn(ns)).status().code(),
              absl::StatusCode::kUnavailable);
  }

  // A rotated client certificate is read again: one the root refuses, then,
  // replaced in place, one it accepts.
  MakeCert("tier-other-ca", "tier-leaf.key", "tier-leaf-other.crt", "/CN=informerd-leaf");
  std::filesystem::copy_file(CertPath("tier-leaf-other.crt"), CertPath("tier-rotating.crt"),
                             std::filesystem::copy_options::overwrite_existing);
  absl::StatusOr<std::unique_ptr<tier::InformerdUpstream>> rotating =
      tier::InformerdUpstream::Create(
          config::UpstreamConfig{.url = url, .ca_file = CertPath("tier-ca.crt"),
                                 .cert_file = CertPath("tier-rotating.crt"),
                                 .key_file = CertPath("tier-leaf.key")},
          absl::Seconds(1));
  ASSERT_TRUE(rotating.ok()) << rotating.status();
  EXPECT_EQ((*rotating)->Discover(ConfigMapsIn(ns)).status().code(),
            absl::StatusCode::kUnavailable);
  std::filesystem::copy_file(CertPath("tier-leaf.crt"), CertPath("tier-rotating.crt.new"),
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::rename(CertPath("tier-rotating.crt.new"), CertPath("tier-rotating.crt"));
  EXPECT_TRUE(Eventually([&] { return (*rotating)->Discover(ConfigMapsIn(ns)).ok(); }, kWait))
      << (*rotating)->Discover(ConfigMapsIn(ns)).status();

  EXPECT_EQ(tier::InformerdUpstream::Create(
                config::UpstreamConfig{.url = url, .ca_file = CertPath("missing.crt")})
                .status()
                .message(),
            absl::StrCat("--upstream-ca-file ", CertPath("missing.crt"), ": cannot read the file"));
}

constexpr char kRbac[] = "/apis/rbac.authorization.k8s.io/v1/namespaces/";

// Lets `users` get, list and watch the configmaps of `ns`.
void GrantConfigMapReaders(const std::string& ns, const std::vector<std::string>& users) {
  ApiSend("POST", absl::StrCat(kRbac, ns, "/roles"),
          R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",)"
          R"("metadata":{"name":"reader"},"rules":[{"apiGroups":[""],)"
          R"("resources":["configmaps"],"verbs":["get","list","watch"]}]})");
  std::string subjects;
  for (const std::string& user : users) {
    absl::StrAppend(&subjects, subjects.empty() ? "" : ",",
                    R"({"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":")", user,
                    R"("})");
  }
  ApiSend("POST", absl::StrCat(kRbac, ns, "/rolebindings"),
          absl::StrCat(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",)",
                       R"("metadata":{"name":"readers"},"roleRef":{"apiGroup":)",
                       R"("rbac.authorization.k8s.io","kind":"Role","name":"reader"},)",
                       R"("subjects":[)", subjects, "]}"));
}

grpc::Status ListAs(v1::Cache::Stub& stub, const std::string& ns, const std::string& token,
                    v1::ListResponse* response) {
  v1::ListRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  grpc::ClientContext context;
  if (!token.empty()) context.AddMetadata("authorization", absl::StrCat("Bearer ", token));
  return stub.List(&context, request, response);
}

// The binaries, flags and config file as deployed: the leaf reads the root
// as alice (its own token), the root checks alice, and the leaf checks its
// own callers against the apiserver.
TEST(TierTest, TheLeafBinaryReadsTheRootWithItsOwnIdentityAndReviewsItsCallers) {
  const std::string ns = CreateTestNamespace("tier-auth");
  const std::string a = CreateConfigMap(ns, "a", {});
  GrantConfigMapReaders(ns, {"alice", "bob"});
  const std::string bob = ReadFileFromEnv("INFORMERD_BOB_TOKEN_FILE");
  const std::string carol = ReadFileFromEnv("INFORMERD_CAROL_TOKEN_FILE");
  std::unique_ptr<kube::RestClient> alice_client =
      ClientWithToken(ReadFileFromEnv("INFORMERD_ALICE_TOKEN_FILE"));
  ASSERT_TRUE(Eventually([&] {
    absl::StatusOr<kube::HttpResponse> response =
        alice_client->Get(absl::StrCat("/api/v1/namespaces/", ns, "/configmaps"));
    return response.ok() && response->status == 200;
  }, kWait)) << "the apiserver never let alice read " << ns;

  const int root_port = FreeLoopbackPort();
  const int root_http = FreeLoopbackPort();
  InformerdProcess root({"--resources=configmaps", "--auth-mode=kubernetes",
                         absl::StrCat("--grpc-address=127.0.0.1:", root_port),
                         absl::StrCat("--http-address=127.0.0.1:", root_http)},
                        "tier-root.log");
  const std::string leaf_config = absl::StrCat(std::getenv("TEST_TMPDIR"), "/leaf.yaml");
  std::ofstream(leaf_config) << "resources:\n  - resource: configmaps\n    namespace: " << ns
                             << "\nauthMode: kubernetes\nupstream: grpc://127.0.0.1:"
                             << root_port << "\nupstreamTokenFile: "
                             << std::getenv("INFORMERD_ALICE_TOKEN_FILE") << "\n";
  const int leaf_port = FreeLoopbackPort();
  const int leaf_http = FreeLoopbackPort();
  InformerdProcess leaf({absl::StrCat("--config=", leaf_config),
                         absl::StrCat("--grpc-address=127.0.0.1:", leaf_port),
                         absl::StrCat("--http-address=127.0.0.1:", leaf_http)},
                        "tier-leaf.log");
  ASSERT_TRUE(Eventually([&] { return HttpGet(leaf_http, "/readyz") == "200 ok\n"; }, kWait))
      << HttpGet(leaf_http, "/readyz") << "\nleaf:\n" << leaf.Log() << "\nroot:\n" << root.Log();

  auto stub = v1::Cache::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", leaf_port),
                                                     grpc::InsecureChannelCredentials()));
  v1::ListResponse response;
  grpc::Status status = ListAs(*stub, ns, bob, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.items_size(), 1);
  EXPECT_EQ(response.items(0).name(), "a");
  EXPECT_EQ(response.items(0).resource_version(), a);
  EXPECT_EQ(ListAs(*stub, ns, carol, &response).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(ListAs(*stub, ns, "", &response).error_code(), grpc::StatusCode::UNAUTHENTICATED);

  // Without its token the root turns the leaf away, and the leaf says so.
  const std::string anonymous_config = absl::StrCat(std::getenv("TEST_TMPDIR"), "/anon.yaml");
  std::ofstream(anonymous_config) << "resources:\n  - resource: configmaps\n    namespace: "
                                  << ns << "\nupstream: grpc://127.0.0.1:" << root_port << "\n";
  InformerdProcess anonymous({absl::StrCat("--config=", anonymous_config),
                              absl::StrCat("--grpc-address=127.0.0.1:", FreeLoopbackPort()),
                              absl::StrCat("--http-address=127.0.0.1:", FreeLoopbackPort())},
                             "tier-anonymous.log");
  std::optional<int> exit_code = anonymous.WaitForExit(kWait);
  ASSERT_TRUE(exit_code.has_value()) << anonymous.Log();
  EXPECT_NE(*exit_code, 0);
  EXPECT_NE(anonymous.Log().find("ListResources on the upstream informerd grpc://127.0.0.1:"),
            std::string::npos)
      << anonymous.Log();

  EXPECT_EQ(leaf.Stop(), 0) << leaf.Log();
  EXPECT_EQ(root.Stop(), 0) << root.Log();
}

TEST(TierTest, ABadUpstreamFlagNamesTheFlagAndTheReason) {
  InformerdProcess leaf({"--resources=configmaps", "--upstream=http://root:50051",
                         absl::StrCat("--http-address=127.0.0.1:", FreeLoopbackPort())},
                        "tier-bad-flag.log");
  std::optional<int> exit_code = leaf.WaitForExit(kWait);
  ASSERT_TRUE(exit_code.has_value());
  EXPECT_NE(*exit_code, 0);
  EXPECT_NE(leaf.Log().find("--upstream (upstream): \"http://root:50051\" is not "
                            "grpc://HOST:PORT (plaintext) or grpcs://HOST:PORT (TLS)"),
            std::string::npos)
      << leaf.Log();

  InformerdProcess remote({"--resources=configmaps", "--upstream=grpc://10.1.2.3:50051",
                           absl::StrCat("--http-address=127.0.0.1:", FreeLoopbackPort())},
                          "tier-plaintext.log");
  exit_code = remote.WaitForExit(kWait);
  ASSERT_TRUE(exit_code.has_value());
  EXPECT_NE(*exit_code, 0);
  EXPECT_NE(remote.Log().find("refusing the upstream informerd grpc://10.1.2.3:50051"),
            std::string::npos)
      << remote.Log();
}

}  // namespace
}  // namespace informerd::testing
