// The C++ client's informer model against a real informerd (in process,
// serving from the control plane's apiserver): the SharedInformerFactory,
// handlers added to a running informer, per-handler delivery and resync,
// transforms and indexers. The apiserver's LIST is the judge of end states.
#include <algorithm>
#include <atomic>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/client_interceptor.h>
#include <gtest/gtest.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "client/cpp/connection.h"
#include "client/cpp/recording_handler.h"
#include "client/cpp/shared_informer_factory.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

using client::HandlerRegistration;
using client::InformerKey;
using client::RecordingHandler;
using client::RemoteInformer;
using client::RemoteInformerOptions;
using client::SharedInformerFactory;

constexpr absl::Duration kWait = absl::Seconds(30);

// Counts the calls started on a channel, by method.
class CallCounter {
 public:
  void Count(const std::string& method) {
    absl::MutexLock lock(&mu_);
    ++calls_[method];
  }
  std::map<std::string, int> Calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, int> calls_ ABSL_GUARDED_BY(mu_);
};

class CountingInterceptor : public grpc::experimental::Interceptor {
 public:
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    methods->Proceed();
  }
};

class CountingInterceptorFactory
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit CountingInterceptorFactory(CallCounter* counter) : counter_(counter) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo* info) override {
    counter_->Count(info->method());
    return new CountingInterceptor;
  }

 private:
  CallCounter* counter_;
};

std::shared_ptr<grpc::Channel> ChannelTo(int port, CallCounter* counter = nullptr) {
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
      interceptors;
  if (counter != nullptr) {
    interceptors.push_back(std::make_unique<CountingInterceptorFactory>(counter));
  }
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials(),
      grpc::ChannelArguments(), std::move(interceptors));
}

RemoteInformerOptions ConfigMaps(const std::string& ns, const std::string& labels = "") {
  RemoteInformerOptions options;
  options.resource.set_resource("configmaps");
  options.watch_namespace = ns;
  options.label_selector = labels;
  return options;
}

bool ReplaysTo(const RecordingHandler& handler, const std::map<std::string, std::string>& want) {
  return handler.WaitUntil(
      [&want](const std::vector<std::string>& lines) {
        std::string error;
        return client::ReplayLines(lines, &error) == want;
      },
      kWait);
}

class InformerFactoryTest : public ::testing::Test {
 protected:
  InformerFactoryTest()
      : ns_(CreateTestNamespace("cppfactory")),
        server_({config::ResourceConfig{.resource = "configmaps", .namespace_ = ns_}}) {
    server_.WaitSynced();
  }

  std::string ns_;
  InProcessServer server_;
};

// A resource the real informerd does not serve (it serves configmaps;
// secrets exist in the apiserver) is reported by LastError() within 5s,
// naming the server, the resource and the reason.
TEST_F(InformerFactoryTest, UnservedResourceIsReportedInLastError) {
  client::ConnectionOptions connection;
  connection.address = absl::StrCat("127.0.0.1:", server_.port());
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = client::Connect(connection);
  ASSERT_TRUE(channel.ok()) << channel.status();
  RemoteInformerOptions options;
  options.resource.set_resource("secrets");
  RemoteInformer informer(*channel, connection, options);
  informer.Start();
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  absl::Status error;
  while (absl::Now() < deadline) {
    error = informer.LastError();
    if (!error.ok()) break;
    absl::SleepFor(absl::Milliseconds(20));  // Polling the informer's thread.
  }
  informer.Stop();
  EXPECT_EQ(error.code(), absl::StatusCode::kNotFound) << error;
  EXPECT_TRUE(absl::StrContains(error.message(), connection.address) &&
              absl::StrContains(error.message(), "secrets") &&
              absl::StrContains(error.message(), "not served"))
      << error;
}

TEST_F(InformerFactoryTest, SharesInformersByKeyAndStartsThoseNotStarted) {
  CreateConfigMap(ns_, "a", {{"app", "x"}});
  // The informers' first List is served from what the server holds.
  server_.WaitForVersion("configmaps", CreateConfigMap(ns_, "b", {{"app", "y"}}));
  SharedInformerFactory factory(ChannelTo(server_.port()), {});
  RemoteInformer* all = factory.InformerFor(ConfigMaps(ns_));
  EXPECT_EQ(factory.InformerFor(ConfigMaps(ns_)), all);
  RemoteInformer* x = factory.InformerFor(ConfigMaps(ns_, "app=x"));
  EXPECT_NE(x, all);
  RemoteInformerOptions slim = ConfigMaps(ns_);
  slim.transform = {"slim", [](informerd::v1::Object* o) { o->clear_json(); }};
  RemoteInformer* slim_informer = factory.InformerFor(slim);
  EXPECT_NE(slim_informer, all);
  EXPECT_EQ(factory.InformerFor(slim), slim_informer);

  factory.Start();
  std::map<InformerKey, bool> synced = factory.WaitForCacheSync(kWait);
  ASSERT_EQ(synced.size(), 3u);
  for (const auto& [key, ok] : synced) EXPECT_TRUE(ok) << key.ToString();
  EXPECT_EQ(all->Lister().Size(), 2u);
  EXPECT_EQ(x->Lister().Size(), 1u);
  EXPECT_TRUE(slim_informer->Lister().Get(ns_, "a")->object.json().empty());

  // Requested after Start: not started until the next Start.
  RemoteInformer* y = factory.InformerFor(ConfigMaps(ns_, "app=y"));
  EXPECT_EQ(factory.WaitForCacheSync(absl::ZeroDuration()).count(
                InformerKey::Of(ConfigMaps(ns_, "app=y"))),
            0u);
  EXPECT_FALSE(y->HasSynced());
  factory.Start();
  synced = factory.WaitForCacheSync(kWait);
  EXPECT_EQ(synced.size(), 4u);
  EXPECT_TRUE(synced[InformerKey::Of(ConfigMaps(ns_, "app=y"))]);
  EXPECT_EQ(y->Lister().Size(), 1u);
}

// Shutdown returns only once no handler runs: here a handler is held in a
// call until Shutdown has begun.
TEST_F(InformerFactoryTest, ShutdownWaitsUntilNoHandlerRuns) {
  SharedInformerFactory factory(ChannelTo(server_.port()), {});
  absl::Notification entered, release;
  std::atomic<bool> returned{false};
  RecordingHandler handler([&] {
    if (entered.HasBeenNotified()) return;
    entered.Notify();
    release.WaitForNotification();
    returned = true;
  });
  // Handlers must outlive the factory's informers: shut down first.
  absl::Cleanup shut_down_at_exit = [&factory] { factory.Shutdown(); };
  factory.InformerFor(ConfigMaps(ns_))->AddEventHandler(&handler);
  factory.Start();
  CreateConfigMap(ns_, "a", {});
  ASSERT_TRUE(entered.WaitForNotificationWithTimeout(kWait));
  std::atomic<bool> shut_down{false};
  std::thread shutdown([&] {
    factory.Shutdown();
    shut_down = true;
  });
  EXPECT_FALSE(shut_down);
  release.Notify();
  shutdown.join();
  EXPECT_TRUE(returned);
  // Nothing starts after Shutdown.
  factory.InformerFor(ConfigMaps(ns_, "late=1"));
  factory.Start();
  EXPECT_EQ(factory.WaitForCacheSync(absl::ZeroDuration())
                .count(InformerKey::Of(ConfigMaps(ns_, "late=1"))),
            0u);
}

// A handler added to a running informer while objects are being written:
// ADD for every cached object before any live change, HasSynced after the
// last of them, and in the end exactly the apiserver's LIST.
TEST_F(InformerFactoryTest, LateHandlerGetsEveryObjectAsAddThenLiveChanges) {
  for (int i = 0; i < 20; ++i) CreateConfigMap(ns_, absl::StrCat("pre-", i), {});
  SharedInformerFactory factory(ChannelTo(server_.port()), {});
  RemoteInformer* informer = factory.InformerFor(ConfigMaps(ns_));
  RecordingHandler first;
  informer->AddEventHandler(&first);
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(kWait).begin()->second);

  std::thread writer([&] {
    for (int i = 0; i < 20; ++i) {
      CreateConfigMap(ns_, absl::StrCat("live-", i), {});
      UpdateConfigMap(ns_, absl::StrCat("pre-", i), {}, "changed");
      if (i % 4 == 0) DeleteConfigMap(ns_, absl::StrCat("pre-", i));
    }
  });
  // Added while the writer runs (after its first change, so the cache
  // already differs from the initial listing).
  EXPECT_TRUE(first.WaitForCount(21, kWait));
  const size_t cached = informer->Lister().Size();
  RecordingHandler late;
  // Handlers must outlive the factory's informers: shut down first.
  absl::Cleanup shut_down = [&factory] { factory.Shutdown(); };
  HandlerRegistration* registration = informer->AddEventHandler(&late);
  EXPECT_TRUE(registration->WaitForSynced(kWait));
  writer.join();

  std::map<std::string, std::string> want = ListConfigMaps(ns_);
  EXPECT_TRUE(ReplaysTo(first, want));
  EXPECT_TRUE(ReplaysTo(late, want));
  std::string error;
  client::ReplayLines(late.Texts(), &error);
  EXPECT_EQ(error, "");
  // The first lines are adds, at least as many as were cached just before
  // AddEventHandler, and in key order (they come from the cache).
  std::vector<std::string> lines = late.Texts();
  size_t adds = 0;
  while (adds < lines.size() && lines[adds].rfind("ADD ", 0) == 0) ++adds;
  EXPECT_GE(adds, cached);
}

TEST_F(InformerFactoryTest, RemovedHandlerHearsNothingMore) {
  SharedInformerFactory factory(ChannelTo(server_.port()), {});
  RemoteInformer* informer = factory.InformerFor(ConfigMaps(ns_));
  RecordingHandler removed, kept;
  // Handlers must outlive the factory's informers: shut down first.
  absl::Cleanup shut_down = [&factory] { factory.Shutdown(); };
  HandlerRegistration* registration = informer->AddEventHandler(&removed);
  informer->AddEventHandler(&kept);
  factory.Start();
  CreateConfigMap(ns_, "a", {});
  ASSERT_TRUE(removed.WaitForCount(1, kWait));
  ASSERT_TRUE(informer->RemoveEventHandler(registration).ok());
  CreateConfigMap(ns_, "b", {});
  ASSERT_TRUE(kept.WaitForCount(2, kWait));
  EXPECT_EQ(removed.Texts().size(), 1u);
  EXPECT_EQ(informer->RemoveEventHandler(registration).code(),
            absl::StatusCode::kNotFound);
}

// Per-handler delivery: a handler that takes 1 s per event does not delay
// another, whose events arrive within 50 ms of informerd sending them (as
// seen by a plain Watch on the same server).
TEST_F(InformerFactoryTest, SlowHandlerDoesNotDelayAnother) {
  SharedInformerFactory factory(ChannelTo(server_.port()), {});
  RemoteInformer* informer = factory.InformerFor(ConfigMaps(ns_));
  RecordingHandler slow([] { absl::SleepFor(absl::Seconds(1)); });
  RecordingHandler fast;
  // Handlers must outlive the factory's informers: shut down first.
  absl::Cleanup shut_down = [&factory] { factory.Shutdown(); };
  informer->AddEventHandler(&slow);
  informer->AddEventHandler(&fast);
  factory.Start();
  ASSERT_TRUE(informer->WaitForSync(kWait));

  // The reference: when informerd's events reach a plain watcher.
  grpc::ClientContext context;
  v1::WatchRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns_);
  request.set_send_initial_events(true);
  auto reader = server_.stub().Watch(&context, request);
  absl::Mutex mu;
  std::map<std::string, absl::Time> sent;  // rv -> arrival at the watcher
  absl::Notification watching;
  std::thread reference([&] {
    v1::WatchEvent event;
    while (reader->Read(&event)) {
      absl::Time now = absl::Now();
      if (event.initial_events_end()) watching.Notify();
      if (event.type() != v1::WatchEvent::ADDED) continue;
      absl::MutexLock lock(&mu);
      sent[event.object().resource_version()] = now;
    }
  });
  absl::Cleanup stop_reference = [&] {
    context.TryCancel();
    reference.join();
  };
  ASSERT_TRUE(watching.WaitForNotificationWithTimeout(kWait));

  constexpr int kEvents = 5;
  for (int i = 0; i < kEvents; ++i) CreateConfigMap(ns_, absl::StrCat("o", i), {});
  ASSERT_TRUE(fast.WaitForCount(kEvents, kWait));
  // By then the slow handler is still on its first events.
  EXPECT_LT(slow.Texts().size(), static_cast<size_t>(kEvents));
  absl::Duration worst;
  {
    absl::MutexLock lock(&mu);
    auto all_sent = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return sent.size() >= kEvents; };
    ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&all_sent), kWait));
    for (const RecordingHandler::Line& line : fast.Lines()) {
      std::string rv = line.text.substr(line.text.rfind(' ') + 1);
      ASSERT_EQ(sent.count(rv), 1u) << line.text;
      worst = std::max(worst, line.at - sent[rv]);
    }
  }
  EXPECT_LT(worst, absl::Milliseconds(50));
  std::cerr << "fast handler: worst delay after the reference watcher " << worst << "\n";
  EXPECT_TRUE(slow.WaitForCount(kEvents, kWait));
}

// Resync: two handlers with different periods each get synthetic updates
// (old and new the same version) at their own pace; a handler without one
// gets none; and no call but the informer's one Watch is made.
TEST_F(InformerFactoryTest, ResyncPerHandlerWithoutListing) {
  CreateConfigMap(ns_, "a", {});
  server_.WaitForVersion("configmaps", CreateConfigMap(ns_, "b", {}));
  CallCounter calls;
  SharedInformerFactory factory(ChannelTo(server_.port(), &calls), {},
                                /*default_resync_period=*/absl::Milliseconds(100));
  RemoteInformer* informer = factory.InformerFor(ConfigMaps(ns_));
  RecordingHandler fast_resync, slow_resync, none;
  // Handlers must outlive the factory's informers: shut down first.
  absl::Cleanup shut_down = [&factory] { factory.Shutdown(); };
  informer->AddEventHandler(&fast_resync);  // the factory's default: 100 ms
  informer->AddEventHandler(&slow_resync, absl::Milliseconds(700));
  informer->AddEventHandler(&none, absl::ZeroDuration());
  factory.Start();
  ASSERT_TRUE(informer->WaitForSync(kWait));

  auto resyncs = [](const std::vector<std::string>& lines) {
    int n = 0;
    for (const std::string& line : lines) {
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      if (f[0] == "UPDATE" && f[2] == f[3]) ++n;
    }
    return n;
  };
  // Two objects per resync: five resyncs of the 100 ms handler.
  ASSERT_TRUE(fast_resync.WaitUntil(
      [&](const std::vector<std::string>& l) { return resyncs(l) >= 10; }, kWait));
  ASSERT_TRUE(slow_resync.WaitUntil(
      [&](const std::vector<std::string>& l) { return resyncs(l) >= 2; }, kWait));
  const int fast_count = resyncs(fast_resync.Texts());
  const int slow_count = resyncs(slow_resync.Texts());
  EXPECT_GT(fast_count, slow_count);
  EXPECT_EQ(resyncs(none.Texts()), 0);
  EXPECT_EQ(none.Texts().size(), 2u);
  std::cerr << "resync updates: 100 ms handler " << fast_count << ", 700 ms handler "
            << slow_count << "\n";
  // One Watch, no List.
  std::map<std::string, int> made = calls.Calls();
  EXPECT_EQ(made.size(), 1u);
  EXPECT_EQ(made["/informerd.v1.Cache/Watch"], 1);
  EXPECT_EQ(made.count("/informerd.v1.Cache/List"), 0u);
}

// The transform runs before the object is stored: the cache and every
// handler see only transformed objects, deletes included.
TEST_F(InformerFactoryTest, TransformAppliesBeforeStore) {
  SharedInformerFactory factory(ChannelTo(server_.port()), {});
  RemoteInformerOptions options = ConfigMaps(ns_);
  options.transform = {"drop-json-and-team", [](informerd::v1::Object* o) {
                         o->clear_json();
                         o->mutable_labels()->erase("team");
                       }};
  RemoteInformer* informer = factory.InformerFor(options);
  struct Seen : RecordingHandler {
    absl::Mutex mu;
    int untransformed ABSL_GUARDED_BY(mu) = 0;
    void Check(const informerd::v1::Object& o) {
      absl::MutexLock lock(&mu);
      if (!o.json().empty() || o.labels().count("team") != 0) ++untransformed;
    }
    void OnAdd(const informerd::v1::Object& o) override { Check(o); RecordingHandler::OnAdd(o); }
    void OnUpdate(const informerd::v1::Object& a, const informerd::v1::Object& b) override {
      Check(a);
      Check(b);
      RecordingHandler::OnUpdate(a, b);
    }
    void OnDelete(const informerd::v1::Object& o, bool unknown) override {
      Check(o);
      RecordingHandler::OnDelete(o, unknown);
    }
  } seen;
  // Handlers must outlive the factory's informers: shut down first.
  absl::Cleanup shut_down = [&factory] { factory.Shutdown(); };
  informer->AddEventHandler(&seen);
  CreateConfigMap(ns_, "a", {{"team", "t1"}, {"app", "x"}});
  factory.Start();
  ASSERT_TRUE(informer->WaitForSync(kWait));
  UpdateConfigMap(ns_, "a", {{"team", "t2"}, {"app", "x"}}, "y");
  DeleteConfigMap(ns_, "a");
  CreateConfigMap(ns_, "b", {{"team", "t1"}});
  ASSERT_TRUE(seen.WaitForCount(4, kWait));
  client::CachedObjectPtr b = informer->Lister().Get(ns_, "b");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->object.json().empty());
  EXPECT_EQ(b->object.labels().count("team"), 0u);
  absl::MutexLock lock(&seen.mu);
  EXPECT_EQ(seen.untransformed, 0);
}

// A custom index over the live cache: ByIndex and IndexKeys follow the
// objects' changes, as client-go's Indexer does.
TEST_F(InformerFactoryTest, CustomIndexFollowsTheCache) {
  SharedInformerFactory factory(ChannelTo(server_.port()), {});
  RemoteInformer* informer = factory.InformerFor(ConfigMaps(ns_));
  ASSERT_TRUE(informer
                  ->AddIndex("by-app",
                             [](const informerd::v1::Object& o) {
                               auto app = o.labels().find("app");
                               if (app == o.labels().end()) return std::vector<std::string>{};
                               return std::vector<std::string>{app->second};
                             })
                  .ok());
  RecordingHandler handler;
  // Handlers must outlive the factory's informers: shut down first.
  absl::Cleanup shut_down = [&factory] { factory.Shutdown(); };
  informer->AddEventHandler(&handler);
  CreateConfigMap(ns_, "a", {{"app", "web"}});
  CreateConfigMap(ns_, "b", {{"app", "web"}});
  server_.WaitForVersion("configmaps", CreateConfigMap(ns_, "c", {{"app", "db"}}));
  factory.Start();
  ASSERT_TRUE(informer->WaitForSync(kWait));
  EXPECT_EQ(*informer->Lister().IndexKeys("by-app", "web"),
            (std::vector<std::string>{ns_ + "/a", ns_ + "/b"}));
  UpdateConfigMap(ns_, "b", {{"app", "db"}}, "x");
  ASSERT_TRUE(handler.WaitForCount(4, kWait));
  EXPECT_EQ(*informer->Lister().IndexKeys("by-app", "web"),
            std::vector<std::string>{ns_ + "/a"});
  absl::StatusOr<std::vector<client::CachedObjectPtr>> db =
      informer->Lister().ByIndex("by-app", "db");
  ASSERT_TRUE(db.ok());
  ASSERT_EQ(db->size(), 2u);
  EXPECT_EQ((*db)[0]->object.name(), "b");
  EXPECT_EQ((*db)[1]->object.name(), "c");
  EXPECT_EQ(informer->Lister().IndexKeys("nope", "x").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace informerd::testing
