// The Kubernetes API port against the kube-apiserver, the oracle: the same
// GET requests, with the same bearer token, to both must answer the same
// (lists, pages, selectors, gets, errors, watch events), and kubectl works
// against informerd with nothing changed but its server.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "server/auth/kube_reviewer.h"
#include "tests/integration/live_cluster.h"

extern char** environ;

namespace informerd::testing {
namespace {

struct Answer {
  int status = 0;
  std::string body;
};

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  EXPECT_NE(value, nullptr) << name << " is not set; run through hack/test.sh";
  return value == nullptr ? "" : value;
}

int ApiserverPort() {
  std::string url = Env("INFORMERD_APISERVER_URL");
  return std::stoi(url.substr(url.rfind(':') + 1));
}

// HTTPS GETs to 127.0.0.1:`port`, verified with the control plane's CA,
// with `token` as the bearer token.
class Https {
 public:
  Https(int port, std::string token) : port_(port), token_(std::move(token)) {}

  Answer Get(const std::string& path) const {
    httplib::SSLClient client("127.0.0.1", port_);
    client.set_ca_cert_path(Env("INFORMERD_CA_FILE").c_str());
    client.enable_server_certificate_verification(true);
    client.set_read_timeout(30, 0);
    httplib::Headers headers = {{"Accept", "application/json"}};
    if (!token_.empty()) headers.emplace("Authorization", absl::StrCat("Bearer ", token_));
    httplib::Result result = client.Get(path.c_str(), headers);
    EXPECT_TRUE(result) << path << ": " << httplib::to_string(result.error());
    if (!result) return {};
    return {result->status, result->body};
  }

  // A watch's lines, until `done` says enough (or the watch's own
  // timeoutSeconds in `path` ends it).
  std::vector<std::string> Watch(const std::string& path,
                                 const std::function<bool(const std::vector<std::string>&)>& done,
                                 int* status) const {
    httplib::SSLClient client("127.0.0.1", port_);
    client.set_ca_cert_path(Env("INFORMERD_CA_FILE").c_str());
    client.enable_server_certificate_verification(true);
    client.set_read_timeout(60, 0);
    std::vector<std::string> lines;
    std::string partial;
    httplib::Result result = client.Get(
        path.c_str(),
        {{"Authorization", absl::StrCat("Bearer ", token_)}, {"Accept", "application/json"}},
        [&](const httplib::Response& response) {
          *status = response.status;
          return true;
        },
        [&](const char* data, size_t size) {
          partial.append(data, size);
          size_t newline;
          while ((newline = partial.find('\n')) != std::string::npos) {
            lines.push_back(partial.substr(0, newline));
            partial.erase(0, newline + 1);
          }
          return !done(lines);
        });
    return lines;
  }

 private:
  const int port_;
  const std::string token_;
};

rapidjson::Document Parse(const std::string& json) {
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

// What informerd serves of an apiserver answer: everything but each
// object's metadata.managedFields (cut by the default configuration).
void CutManagedFields(rapidjson::Value& value) {
  if (!value.IsObject()) return;
  if (value.HasMember("metadata") && value["metadata"].IsObject()) {
    value["metadata"].RemoveMember("managedFields");
  }
  if (value.HasMember("items") && value["items"].IsArray()) {
    for (rapidjson::Value& item : value["items"].GetArray()) CutManagedFields(item);
  }
  if (value.HasMember("object")) CutManagedFields(value["object"]);
}

// A list answer without its resourceVersion and continue token (which
// name each server's own snapshot); returns the resourceVersion.
std::string WithoutListVersion(rapidjson::Document& list) {
  std::string version;
  if (list.IsObject() && list.HasMember("metadata")) {
    rapidjson::Value& metadata = list["metadata"];
    if (metadata.HasMember("resourceVersion")) {
      version = metadata["resourceVersion"].GetString();
      metadata.RemoveMember("resourceVersion");
    }
    metadata.RemoveMember("continue");
  }
  return version;
}

class KubeApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Written before informerd starts: older than its event history.
    before_ns_ = new std::string(CreateTestNamespace("kubeapi-before"));
    before_version_ = new std::string(CreateConfigMap(*before_ns_, "before", {}));
    InProcessServerOptions options;
    options.kube_api = true;
    reviewer_ = new auth::KubeReviewer(&AdminClient());
    options.reviewer = reviewer_;
    server_ = new InProcessServer({{"", "v1", "configmaps"}}, std::move(options));
    server_->WaitSynced();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    delete reviewer_;
    reviewer_ = nullptr;
  }

  Https Informerd(const std::string& token) const { return Https(server_->kube_api_port(), token); }
  Https Apiserver(const std::string& token) const { return Https(ApiserverPort(), token); }

  // The same GET to both, expected to answer alike: returns informerd's
  // resourceVersion of a list ("" for other answers).
  std::string ExpectSameAnswer(const std::string& path, const std::string& token) {
    Answer api = Apiserver(token).Get(path);
    Answer ours = Informerd(token).Get(path);
    EXPECT_EQ(ours.status, api.status) << path << "\napiserver: " << api.body
                                       << "\ninformerd: " << ours.body;
    rapidjson::Document expected = Parse(api.body);
    rapidjson::Document got = Parse(ours.body);
    CutManagedFields(expected);
    WithoutListVersion(expected);
    std::string version = WithoutListVersion(got);
    EXPECT_EQ(Dump(got), Dump(expected)) << path;
    return version;
  }

  static InProcessServer* server_;
  static auth::KubeReviewer* reviewer_;
  static std::string* before_ns_;
  static std::string* before_version_;
  const std::string admin_ = ReadFileFromEnv("INFORMERD_ADMIN_TOKEN_FILE");
};

InProcessServer* KubeApiTest::server_ = nullptr;
auth::KubeReviewer* KubeApiTest::reviewer_ = nullptr;
std::string* KubeApiTest::before_ns_ = nullptr;
std::string* KubeApiTest::before_version_ = nullptr;

TEST_F(KubeApiTest, ListsGetsSelectorsAndErrorsAnswerAsTheApiserver) {
  std::string ns = CreateTestNamespace("kubeapi-oracle");
  std::string last;
  for (int i = 0; i < 5; ++i) {
    std::map<std::string, std::string> labels;
    if (i % 2 == 0) labels["app"] = "a";
    last = CreateConfigMap(ns, absl::StrCat("cm-", i), labels, absl::StrCat("v", i));
  }
  server_->WaitForVersion("configmaps", last);
  const std::string base = absl::StrCat("/api/v1/namespaces/", ns, "/configmaps");

  std::string version = ExpectSameAnswer(base, admin_);
  EXPECT_GE(std::stoull(version), std::stoull(last));
  ExpectSameAnswer(absl::StrCat(base, "?labelSelector=app%3Da"), admin_);
  ExpectSameAnswer(absl::StrCat(base, "?labelSelector=app%21%3Da"), admin_);
  ExpectSameAnswer(absl::StrCat(base, "?fieldSelector=metadata.name%3Dcm-3"), admin_);
  ExpectSameAnswer(absl::StrCat(base, "/cm-2"), admin_);
  ExpectSameAnswer(absl::StrCat(base, "/absent"), admin_);
  // A malformed selector: 400 BadRequest from both (messages differ).
  Answer api = Apiserver(admin_).Get(absl::StrCat(base, "?labelSelector=a%3D%3D%3Db"));
  Answer ours = Informerd(admin_).Get(absl::StrCat(base, "?labelSelector=a%3D%3D%3Db"));
  EXPECT_EQ(ours.status, api.status);
  EXPECT_EQ(ours.status, 400) << ours.body;
  EXPECT_STREQ(Parse(ours.body)["reason"].GetString(), Parse(api.body)["reason"].GetString());
}

// Alice may read nothing in a new namespace: both answer 403 Forbidden;
// no token at all: 401 from both.
TEST_F(KubeApiTest, TheCallersOwnTokenDecidesAsAtTheApiserver) {
  std::string ns = CreateTestNamespace("kubeapi-forbidden");
  const std::string path = absl::StrCat("/api/v1/namespaces/", ns, "/configmaps");
  const std::string alice = ReadFileFromEnv("INFORMERD_ALICE_TOKEN_FILE");
  for (const std::string& token : {alice, std::string("not-a-token")}) {
    Answer api = Apiserver(token).Get(path);
    Answer ours = Informerd(token).Get(path);
    EXPECT_EQ(ours.status, api.status) << ours.body << "\n" << api.body;
    EXPECT_STREQ(Parse(ours.body)["reason"].GetString(), Parse(api.body)["reason"].GetString());
  }
  // Secrets are not served: the request passes through, and informerd adds
  // no credentials of its own to it. Without a token the apiserver sees
  // its anonymous user (403), with alice's, alice (403); with the admin's,
  // the admin (200).
  const std::string secrets = absl::StrCat("/api/v1/namespaces/", ns, "/secrets");
  for (const std::string& token : {std::string(), alice, admin_}) {
    Answer api = Apiserver(token).Get(secrets);
    Answer ours = Informerd(token).Get(secrets);
    EXPECT_EQ(ours.status, api.status) << ours.body << "\n" << api.body;
    rapidjson::Document expected = Parse(api.body);
    rapidjson::Document got = Parse(ours.body);
    if (api.status == 200) WithoutListVersion(expected), WithoutListVersion(got);
    EXPECT_EQ(Dump(got), Dump(expected));
  }
}

TEST_F(KubeApiTest, PagesHoldTheSameItemsAsTheApiserversPages) {
  std::string ns = CreateTestNamespace("kubeapi-pages");
  std::string last;
  for (int i = 0; i < 7; ++i) last = CreateConfigMap(ns, absl::StrCat("p-", i), {});
  server_->WaitForVersion("configmaps", last);
  auto all_pages = [&](const Https& server) {
    std::vector<std::string> pages;
    std::string token;
    for (int page = 0; page < 10; ++page) {
      Answer answer = server.Get(absl::StrCat("/api/v1/namespaces/", ns,
                                              "/configmaps?limit=3&continue=", token));
      EXPECT_EQ(answer.status, 200) << answer.body;
      rapidjson::Document list = Parse(answer.body);
      CutManagedFields(list);
      const rapidjson::Value& metadata = list["metadata"];
      token = metadata.HasMember("continue") ? metadata["continue"].GetString() : "";
      pages.push_back(Dump(list["items"]));
      if (token.empty()) break;
    }
    return pages;
  };
  std::vector<std::string> ours = all_pages(Informerd(admin_));
  EXPECT_EQ(ours.size(), 3u);
  EXPECT_EQ(ours, all_pages(Apiserver(admin_)));
}

// A watch of the same namespace from the same version sees the same
// events, in order, with the same objects.
TEST_F(KubeApiTest, AWatchSeesTheApiserversEvents) {
  std::string ns = CreateTestNamespace("kubeapi-watch");
  std::string from = CreateConfigMap(ns, "before", {});
  server_->WaitForVersion("configmaps", from);
  const std::string path = absl::StrCat("/api/v1/namespaces/", ns,
                                        "/configmaps?watch=1&timeoutSeconds=30&resourceVersion=",
                                        from);
  auto enough = [](const std::vector<std::string>& lines) { return lines.size() >= 4; };
  int api_status = 0;
  int our_status = 0;
  std::vector<std::string> api_lines;
  std::vector<std::string> our_lines;
  std::thread api_watch([&] { api_lines = Apiserver(admin_).Watch(path, enough, &api_status); });
  std::thread our_watch([&] { our_lines = Informerd(admin_).Watch(path, enough, &our_status); });
  // Both watches resume from `from`, so every write below reaches both
  // whenever each began.
  CreateConfigMap(ns, "w", {{"app", "a"}});
  UpdateConfigMap(ns, "w", {{"app", "b"}}, "changed");
  CreateConfigMap(ns, "x", {});
  DeleteConfigMap(ns, "w");
  api_watch.join();
  our_watch.join();
  EXPECT_EQ(our_status, 200);
  EXPECT_EQ(api_status, 200);
  ASSERT_EQ(our_lines.size(), api_lines.size());
  for (size_t i = 0; i < our_lines.size(); ++i) {
    rapidjson::Document expected = Parse(api_lines[i]);
    rapidjson::Document got = Parse(our_lines[i]);
    CutManagedFields(expected);
    EXPECT_EQ(Dump(got), Dump(expected)) << "event " << i;
  }
}

// A watch from before informerd's history (with the backfill from the
// apiserver off) is a 200 whose one event is the 410 Expired Status, as
// the apiserver frames a watch from before its watch cache. The apiserver
// itself cannot be made to answer that here: on a control plane this
// young its watch cache reaches back to its start, and it serves a watch
// from resourceVersion=1 even after etcd compacted past it (seen on 1.37).
TEST_F(KubeApiTest, AWatchFromBeforeTheHistoryIsExpired) {
  InProcessServerOptions options;
  options.kube_api = true;
  options.reviewer = reviewer_;
  options.config.history_backfill = false;
  InProcessServer no_backfill({{"", "v1", "configmaps"}}, std::move(options));
  no_backfill.WaitSynced();
  const std::string path =
      absl::StrCat("/api/v1/namespaces/", *before_ns_,
                   "/configmaps?watch=1&timeoutSeconds=10&resourceVersion=", *before_version_);
  auto one = [](const std::vector<std::string>& lines) { return !lines.empty(); };
  int status = 0;
  std::vector<std::string> lines =
      Https(no_backfill.kube_api_port(), admin_).Watch(path, one, &status);
  EXPECT_EQ(status, 200);
  ASSERT_EQ(lines.size(), 1u) << "informerd's watch sent nothing";
  rapidjson::Document got = Parse(lines[0]);
  ASSERT_STREQ(got["type"].GetString(), "ERROR") << lines[0];
  const rapidjson::Value& object = got["object"];
  EXPECT_STREQ(object["kind"].GetString(), "Status");
  EXPECT_STREQ(object["apiVersion"].GetString(), "v1");
  EXPECT_STREQ(object["status"].GetString(), "Failure");
  EXPECT_STREQ(object["reason"].GetString(), "Expired");
  EXPECT_EQ(object["code"].GetInt(), 410);
  EXPECT_EQ(std::string(object["message"].GetString()).rfind("too old resource version", 0), 0u)
      << lines[0];
}

// kubectl with only --server (and the CA that signed informerd's
// certificate) changed.
class Kubectl {
 public:
  Kubectl(int port, const std::string& token) {
    binary_ = absl::StrCat(Env("INFORMERD_CACHE"), "/bin/kubectl");
    EXPECT_EQ(access(binary_.c_str(), X_OK), 0)
        << binary_ << " is missing: hack/install-helm.sh installs it (hack/test.sh runs it)";
    flags_ = {absl::StrCat("--server=https://127.0.0.1:", port),
              absl::StrCat("--certificate-authority=", Env("INFORMERD_CA_FILE")),
              absl::StrCat("--token=", token), "--kubeconfig=/dev/null"};
  }

  // Runs kubectl with `args`; its stdout, and its exit status in *status.
  std::string Run(const std::vector<std::string>& args, int* status) const {
    int out[2];
    EXPECT_EQ(pipe(out), 0);
    pid_t pid = Spawn(args, out[1]);
    close(out[1]);
    std::string output = ReadAll(out[0]);
    close(out[0]);
    int wait_status = 0;
    waitpid(pid, &wait_status, 0);
    *status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
    return output;
  }

  // Starts kubectl with `args`, reading its stdout through *out.
  pid_t Start(const std::vector<std::string>& args, int* out) const {
    int pipe_fds[2];
    EXPECT_EQ(pipe(pipe_fds), 0);
    pid_t pid = Spawn(args, pipe_fds[1]);
    close(pipe_fds[1]);
    *out = pipe_fds[0];
    return pid;
  }

  static std::string ReadLine(int fd) {
    std::string line;
    char c;
    while (read(fd, &c, 1) == 1 && c != '\n') line += c;
    return line;
  }

 private:
  pid_t Spawn(const std::vector<std::string>& args, int stdout_fd) const {
    std::vector<std::string> all = {binary_};
    all.insert(all.end(), flags_.begin(), flags_.end());
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : all) argv.push_back(arg.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, binary_.c_str(), &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
  }

  static std::string ReadAll(int fd) {
    std::string output;
    char buffer[4096];
    ssize_t n;
    while ((n = read(fd, buffer, sizeof(buffer))) > 0) output.append(buffer, n);
    return output;
  }

  std::string binary_;
  std::vector<std::string> flags_;
};

TEST_F(KubeApiTest, KubectlGetsWatchesAndAppliesThroughInformerd) {
  std::string ns = CreateTestNamespace("kubeapi-kubectl");
  std::string version = CreateConfigMap(ns, "first", {{"app", "a"}}, "one");
  server_->WaitForVersion("configmaps", version);
  Kubectl kubectl(server_->kube_api_port(), admin_);
  int status = 0;

  std::string names = kubectl.Run({"get", "configmaps", "-n", ns, "-o", "name"}, &status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(names, "configmap/first\n");
  std::string table = kubectl.Run({"get", "configmaps", "-n", ns}, &status);
  EXPECT_EQ(status, 0);
  EXPECT_NE(table.find("first"), std::string::npos) << table;

  std::string yaml = kubectl.Run({"get", "configmap", "first", "-n", ns, "-o", "yaml"}, &status);
  EXPECT_EQ(status, 0);
  EXPECT_NE(yaml.find("name: first"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find(absl::StrCat("resourceVersion: \"", version, "\"")), std::string::npos)
      << yaml;

  const std::string raw_path = absl::StrCat("/api/v1/namespaces/", ns, "/configmaps/first");
  std::string raw = kubectl.Run({"get", "--raw", raw_path}, &status);
  EXPECT_EQ(status, 0);
  rapidjson::Document expected = ApiGet(raw_path);
  CutManagedFields(expected);
  EXPECT_EQ(Dump(Parse(raw)), Dump(expected));

  // get -w: the current state first, then a change made after it.
  int watch_out = -1;
  pid_t watcher = kubectl.Start(
      {"get", "configmaps", "-n", ns, "-w", "--output-watch-events", "-o", "name"}, &watch_out);
  // With -o name kubectl prints no event type: the first line is its
  // list's, the second its watch's.
  EXPECT_EQ(Kubectl::ReadLine(watch_out), "configmap/first");
  CreateConfigMap(ns, "second", {});
  EXPECT_EQ(Kubectl::ReadLine(watch_out), "configmap/second");
  kill(watcher, SIGTERM);
  waitpid(watcher, nullptr, 0);
  close(watch_out);

  // apply: its GET is informerd's, its write passes through with the
  // caller's token; the apiserver then holds the object.
  std::string manifest = absl::StrCat(std::getenv("TEST_TMPDIR"), "/applied.yaml");
  std::ofstream(manifest) << "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n"
                          << "  namespace: " << ns << "\ndata:\n  k: applied-value\n";
  std::string applied = kubectl.Run({"apply", "-f", manifest}, &status);
  EXPECT_EQ(status, 0) << applied;
  EXPECT_EQ(applied, "configmap/applied created\n");
  rapidjson::Document stored =
      ApiGet(absl::StrCat("/api/v1/namespaces/", ns, "/configmaps/applied"));
  ASSERT_TRUE(stored.IsObject());
  EXPECT_STREQ(stored["data"]["k"].GetString(), "applied-value");
  // Its managedFields name kubectl's apply: the write was the caller's.
  EXPECT_NE(Dump(stored["metadata"]["managedFields"]).find("kubectl-client-side-apply"),
            std::string::npos)
      << Dump(stored["metadata"]);
}

}  // namespace
}  // namespace informerd::testing
