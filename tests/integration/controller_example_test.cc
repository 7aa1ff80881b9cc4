// The C++ example controller (client/cpp/example/controller) end to end:
// its library against an in-process informerd serving configmaps and
// secrets from the control plane's apiserver. Judged by its lines: every
// ConfigMap reconciled at its latest version, the late handler given every
// object, resyncs arriving, and the slow handler delaying no one.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "client/cpp/example/controller/secret_ref_controller.h"
#include "client/cpp/shared_informer_factory.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

constexpr absl::Duration kWait = absl::Seconds(30);

// The controller's lines, with when each came.
class Lines {
 public:
  struct Line {
    std::vector<std::string> fields;
    absl::Time at;
  };
  void Add(const std::string& text) {
    absl::MutexLock lock(&mu_);
    lines_.push_back({absl::StrSplit(text, ' '), absl::Now()});
  }
  std::vector<Line> All() const {
    absl::MutexLock lock(&mu_);
    return lines_;
  }
  // The first line for which match(fields) holds, waiting for it.
  std::optional<Line> WaitFor(const std::function<bool(const std::vector<std::string>&)>& match,
                              absl::Duration timeout = kWait) const {
    std::optional<Line> found;
    auto seen = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const Line& line : lines_) {
        if (match(line.fields)) {
          found = line;
          return true;
        }
      }
      return false;
    };
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&seen), timeout);
    return found;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<Line> lines_ ABSL_GUARDED_BY(mu_);
};

std::string CreateSecret(const std::string& ns, const std::string& name) {
  rapidjson::Document created = ApiSend(
      "POST", absl::StrCat("/api/v1/namespaces/", ns, "/secrets"),
      absl::StrCat(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":")", name,
                   R"("},"stringData":{"k":"v"}})"));
  return created["metadata"]["resourceVersion"].GetString();
}

auto Reconciled(const std::string& key, const std::string& rv, const std::string& result) {
  return [=](const std::vector<std::string>& f) {
    return f.size() >= 4 && f[0] == "RECONCILED" && f[1] == key && f[2] == rv &&
           f.back() == result;
  };
}

TEST(ControllerExample, ReconcilesEveryConfigMapWithALateHandlerResyncAndASlowHandler) {
  std::string ns = CreateTestNamespace("cppctl");
  InProcessServer server({config::ResourceConfig{.resource = "configmaps", .namespace_ = ns},
                          config::ResourceConfig{.resource = "secrets", .namespace_ = ns}});
  server.WaitSynced();
  std::string s1 = CreateSecret(ns, "s1");
  std::string c1 = CreateConfigMap(ns, "c1", {{"secret", "s1"}});
  std::string c2 = CreateConfigMap(ns, "c2", {{"secret", "s2"}});
  std::string c3 = CreateConfigMap(ns, "c3", {});
  // The server synced before these existed; the initial state must hold them.
  server.WaitForVersion("secrets", s1);
  server.WaitForVersion("configmaps", c3);

  client::SharedInformerFactory factory(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", server.port()),
                          grpc::InsecureChannelCredentials()),
      {});
  Lines lines;
  example::SecretRefControllerOptions options;
  options.watch_namespace = ns;
  options.resync_period = absl::Milliseconds(300);
  options.audit_delay = absl::Seconds(1);
  options.emit = [&lines](const std::string& line) { lines.Add(line); };
  example::SecretRefController controller(&factory, options);
  // Its handlers must not run once it is gone: shut the factory down first.
  absl::Cleanup shut_down = [&factory] { factory.Shutdown(); };
  ASSERT_TRUE(controller.Run(kWait).ok());
  ASSERT_TRUE(controller.AnnounceLateSynced(kWait));

  // Reconciled from the initial state.
  EXPECT_TRUE(lines.WaitFor(Reconciled(ns + "/c1", c1, "present")));
  EXPECT_TRUE(lines.WaitFor(Reconciled(ns + "/c2", c2, "missing")));
  EXPECT_TRUE(lines.WaitFor(Reconciled(ns + "/c3", c3, "none")));

  // The late handler was given every cached ConfigMap before LATE SYNCED.
  std::set<std::string> late_before_synced;
  for (const Lines::Line& line : lines.All()) {
    if (line.fields[0] == "LATE" && line.fields[1] == "SYNCED") break;
    if (line.fields[0] == "LATE") {
      EXPECT_EQ(line.fields[1], "ADD");
      late_before_synced.insert(line.fields[2]);
    }
  }
  EXPECT_EQ(late_before_synced, (std::set<std::string>{ns + "/c1", ns + "/c2", ns + "/c3"}));

  // A live change is reconciled although the audit handler, at 1 s per
  // event, still has seconds of backlog: c4's reconcile comes before the
  // audit handler is through its four events. (Ordering, not a latency
  // bound: under a loaded CI machine any wall-clock bound is a coin toss.)
  absl::Time created = absl::Now();
  std::string c4 = CreateConfigMap(ns, "c4", {{"secret", "s1"}});
  std::optional<Lines::Line> c4_reconciled = lines.WaitFor(Reconciled(ns + "/c4", c4, "present"));
  ASSERT_TRUE(c4_reconciled);
  absl::Duration delay = c4_reconciled->at - created;
  int audited = 0;
  for (const Lines::Line& line : lines.All()) {
    if (line.at <= c4_reconciled->at && line.fields[0] == "AUDIT") ++audited;
  }
  std::cerr << "c4 reconciled " << delay << " after its create; the audit handler had "
            << audited << " of 4 events done\n";
  EXPECT_LT(audited, 4);
  EXPECT_TRUE(lines.WaitFor([&](const std::vector<std::string>& f) {
    return f[0] == "LATE" && f[1] == "ADD" && f[2] == ns + "/c4";
  }));

  // A Secret appearing requeues the ConfigMap naming it (through the index).
  CreateSecret(ns, "s2");
  EXPECT_TRUE(lines.WaitFor(Reconciled(ns + "/c2", c2, "present")));

  // Resyncs reach the reconcile handler: every ConfigMap, with its version.
  for (const auto& entry : ListConfigMaps(ns)) {
    const std::string& key = entry.first;
    const std::string& rv = entry.second;
    EXPECT_TRUE(lines.WaitFor([&](const std::vector<std::string>& f) {
      return f[0] == "RESYNC" && f[1] == key && f[2] == rv;
    })) << key;
  }

  DeleteConfigMap(ns, "c3");
  EXPECT_TRUE(lines.WaitFor([&](const std::vector<std::string>& f) {
    return f[0] == "RECONCILED" && f[1] == ns + "/c3" && f[2] == "deleted";
  }));
  // The slow handler does get there, in order.
  EXPECT_TRUE(lines.WaitFor([&](const std::vector<std::string>& f) {
    return f[0] == "AUDIT" && f[2] == ns + "/c4";
  }));

  factory.Shutdown();
  controller.Stop();
  // Each ConfigMap's last reconcile saw its current version.
  std::map<std::string, std::string> last;
  for (const Lines::Line& line : lines.All()) {
    if (line.fields[0] == "RECONCILED") last[line.fields[1]] = line.fields[2];
  }
  for (const auto& [key, rv] : ListConfigMaps(ns)) EXPECT_EQ(last[key], rv) << key;
  EXPECT_EQ(last[ns + "/c3"], "deleted");
}

}  // namespace
}  // namespace informerd::testing
