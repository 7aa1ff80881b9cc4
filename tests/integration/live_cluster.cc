#include "tests/integration/live_cluster.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <signal.h>

#include <gtest/gtest.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "server/kube/kubeconfig.h"

namespace informerd::testing {
namespace {

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "integration test setup: %s\n", message.c_str());
  std::abort();
}

std::string JsonString(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return buffer.GetString();
}

std::string ConfigMapJson(const std::string& ns, const std::string& name,
                          const std::map<std::string, std::string>& labels,
                          const std::string& data) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("apiVersion", "v1", a);
  doc.AddMember("kind", "ConfigMap", a);
  rapidjson::Value metadata(rapidjson::kObjectType);
  metadata.AddMember("name", rapidjson::Value(name.c_str(), a), a);
  metadata.AddMember("namespace", rapidjson::Value(ns.c_str(), a), a);
  rapidjson::Value label_map(rapidjson::kObjectType);
  for (const auto& [k, v] : labels) {
    label_map.AddMember(rapidjson::Value(k.c_str(), a), rapidjson::Value(v.c_str(), a), a);
  }
  metadata.AddMember("labels", label_map, a);
  doc.AddMember("metadata", metadata, a);
  rapidjson::Value data_map(rapidjson::kObjectType);
  data_map.AddMember("value", rapidjson::Value(data.c_str(), a), a);
  doc.AddMember("data", data_map, a);
  return JsonString(doc);
}

std::string ResourceVersionOf(const rapidjson::Document& doc) {
  const auto& metadata = doc["metadata"];
  return metadata["resourceVersion"].GetString();
}

}  // namespace

kube::RestClient& AdminClient() {
  static kube::RestClient* client = [] {
    // As in informerd's main: a write to a connection the peer closed (a
    // cancelled TLS stream) must be an error, not a process kill.
    std::signal(SIGPIPE, SIG_IGN);
    const char* path = std::getenv("KUBECONFIG");
    if (path == nullptr || *path == '\0') {
      Die("KUBECONFIG is not set; run through hack/test.sh, or eval \"$(hack/control-plane.sh env)\"");
    }
    absl::StatusOr<kube::ClusterConfig> config = kube::LoadKubeconfig(path);
    if (!config.ok()) Die(std::string(config.status().message()));
    absl::StatusOr<std::unique_ptr<kube::RestClient>> made = kube::RestClient::Create(*config);
    if (!made.ok()) Die(std::string(made.status().message()));
    return made->release();
  }();
  return *client;
}

std::string CreateTestNamespace(const std::string& prefix) {
  static std::atomic<int> counter{0};
  std::string name = absl::StrCat(prefix, "-", absl::ToUnixMicros(absl::Now()) % 100000000, "-",
                                  counter++);
  ApiSend("POST", "/api/v1/namespaces",
          absl::StrCat("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"",
                       name, "\"}}"));
  return name;
}

rapidjson::Document ApiGet(const std::string& path) {
  absl::StatusOr<kube::HttpResponse> response = AdminClient().Get(path);
  rapidjson::Document doc;
  EXPECT_TRUE(response.ok()) << response.status();
  if (!response.ok()) return doc;
  EXPECT_LT(response->status, 300) << path << ": " << response->body;
  doc.Parse(response->body.c_str());
  return doc;
}

rapidjson::Document ApiSend(const std::string& method, const std::string& path,
                            const std::string& body) {
  absl::StatusOr<kube::HttpResponse> response =
      method == "POST"     ? AdminClient().Post(path, body, "application/json")
      : method == "PUT"    ? AdminClient().Put(path, body, "application/json")
      : method == "DELETE" ? AdminClient().Delete(path, body)
                           : AdminClient().Patch(path, body, "application/merge-patch+json");
  rapidjson::Document doc;
  EXPECT_TRUE(response.ok()) << response.status();
  if (!response.ok()) return doc;
  EXPECT_LT(response->status, 300) << method << " " << path << ": " << response->body;
  doc.Parse(response->body.c_str());
  return doc;
}

std::string CreateConfigMap(const std::string& ns, const std::string& name,
                            const std::map<std::string, std::string>& labels,
                            const std::string& data) {
  return ResourceVersionOf(ApiSend("POST", absl::StrCat("/api/v1/namespaces/", ns, "/configmaps"),
                                   ConfigMapJson(ns, name, labels, data)));
}

std::string UpdateConfigMap(const std::string& ns, const std::string& name,
                            const std::map<std::string, std::string>& labels,
                            const std::string& data) {
  return ResourceVersionOf(
      ApiSend("PUT", absl::StrCat("/api/v1/namespaces/", ns, "/configmaps/", name),
              ConfigMapJson(ns, name, labels, data)));
}

std::string DeleteConfigMap(const std::string& ns, const std::string& name) {
  rapidjson::Document doc =
      ApiSend("DELETE", absl::StrCat("/api/v1/namespaces/", ns, "/configmaps/", name), "");
  if (doc.IsObject() && doc.HasMember("metadata") && doc["metadata"].HasMember("resourceVersion")) {
    return ResourceVersionOf(doc);
  }
  return "";
}

std::map<std::string, std::string> ListConfigMaps(const std::string& ns) {
  rapidjson::Document list = ApiGet(absl::StrCat("/api/v1/namespaces/", ns, "/configmaps"));
  std::map<std::string, std::string> state;
  for (const auto& item : list["items"].GetArray()) {
    state[absl::StrCat(ns, "/", item["metadata"]["name"].GetString())] =
        item["metadata"]["resourceVersion"].GetString();
  }
  return state;
}

std::unique_ptr<kube::RestClient> AdminClientThrough(int port) {
  absl::StatusOr<kube::ClusterConfig> config = kube::LoadKubeconfig(std::getenv("KUBECONFIG"));
  if (!config.ok()) Die(std::string(config.status().message()));
  config->server = absl::StrCat("https://127.0.0.1:", port);
  absl::StatusOr<std::unique_ptr<kube::RestClient>> made = kube::RestClient::Create(*config);
  if (!made.ok()) Die(std::string(made.status().message()));
  return *std::move(made);
}

void ControlPlane(const std::string& command) {
  const char* root = std::getenv("INFORMERD_ROOT");
  ASSERT_NE(root, nullptr) << "INFORMERD_ROOT (the repository) is not set";
  std::string script = absl::StrCat(root, "/hack/control-plane.sh");
  int rc = std::system(absl::StrCat(script, " ", command, " >&2").c_str());
  ASSERT_EQ(rc, 0) << script << " " << command;
}

void KillApiserver() {
  // Without the script that starts it again, never kill it.
  ASSERT_NE(std::getenv("INFORMERD_ROOT"), nullptr)
      << "INFORMERD_ROOT is not set: run through hack/test.sh (suite_resilience)";
  const char* dir = std::getenv("INFORMERD_CP_DIR");
  ASSERT_NE(dir, nullptr) << "INFORMERD_CP_DIR is not set";
  std::string pid_file = absl::StrCat(dir, "/pids/kube-apiserver.pid");
  std::FILE* file = std::fopen(pid_file.c_str(), "r");
  ASSERT_NE(file, nullptr) << pid_file;
  long pid = 0;
  ASSERT_EQ(std::fscanf(file, "%ld", &pid), 1);
  std::fclose(file);
  ASSERT_GT(pid, 1);
  ASSERT_EQ(kill(static_cast<pid_t>(pid), SIGKILL), 0);
}

std::string ReadFileFromEnv(const char* variable) {
  const char* path = std::getenv(variable);
  if (path == nullptr || *path == '\0') {
    Die(absl::StrCat(variable, " is not set; run through hack/test.sh, or eval \"$(hack/control-plane.sh env)\""));
  }
  std::ifstream file(path);
  if (!file) Die(absl::StrCat(variable, ": cannot read ", path));
  std::stringstream text;
  text << file.rdbuf();
  return std::string(absl::StripAsciiWhitespace(text.str()));
}

std::unique_ptr<kube::RestClient> ClientWithToken(const std::string& token) {
  AdminClient();  // dies with a clear message when KUBECONFIG is missing
  absl::StatusOr<kube::ClusterConfig> config = kube::LoadKubeconfig(std::getenv("KUBECONFIG"));
  if (!config.ok()) Die(std::string(config.status().message()));
  config->client_cert_pem.clear();
  config->client_key_pem.clear();
  config->token_file.clear();
  config->token = token;
  absl::StatusOr<std::unique_ptr<kube::RestClient>> made = kube::RestClient::Create(*config);
  if (!made.ok()) Die(std::string(made.status().message()));
  return *std::move(made);
}

InProcessServer::InProcessServer(const std::vector<config::ResourceConfig>& resources,
                                 cache::HistoryLimits history, kube::RestClient* client)
    : InProcessServer(resources, [&] {
        InProcessServerOptions options;
        options.config.history = history;
        options.client = client;
        return options;
      }()) {}

InProcessServer::InProcessServer(const std::vector<config::ResourceConfig>& resources,
                                 InProcessServerOptions in_process) {
  ServerOptions options;
  options.config = std::move(in_process.config);
  options.config.resources = resources;
  options.upstream = in_process.upstream;
  options.client = in_process.client;
  if (options.upstream == nullptr && options.client == nullptr) options.client = &AdminClient();
  options.reviewer = in_process.reviewer;
  if (options.reviewer != nullptr) options.config.auth.mode = config::AuthMode::kKubernetes;
  options.grpc_address = absl::StrCat("127.0.0.1:", in_process.port);
  options.http_address = "127.0.0.1:0";
  if (in_process.kube_api) {
    const char* cp_dir = std::getenv("INFORMERD_CP_DIR");
    if (cp_dir == nullptr) Die("INFORMERD_CP_DIR is not set; run through hack/test.sh");
    options.config.tls.cert_file = absl::StrCat(cp_dir, "/pki/serving.crt");
    options.config.tls.key_file = absl::StrCat(cp_dir, "/pki/serving.key");
    absl::StatusOr<kube::ClusterConfig> cluster = kube::LoadKubeconfig(std::getenv("KUBECONFIG"));
    if (!cluster.ok()) Die(std::string(cluster.status().message()));
    options.cluster = *std::move(cluster);
    options.kube_api_address = "127.0.0.1:0";
  }
  absl::StatusOr<std::unique_ptr<Server>> started = Server::Start(std::move(options));
  if (!started.ok()) Die(std::string(started.status().message()));
  server_ = *std::move(started);
  stub_ = v1::Cache::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", port()),
                                                 grpc::InsecureChannelCredentials()));
}

InProcessServer::~InProcessServer() { server_->Drain(); }

void InProcessServer::WaitSynced() {
  for (service::ServedResource* served : registry().all()) {
    ASSERT_TRUE(served->informer->WaitForVersion(0, absl::Seconds(60)))
        << served->DisplayName() << " did not sync";
  }
}

void InProcessServer::WaitForVersion(const std::string& resource, const std::string& version) {
  for (service::ServedResource* served : registry().all()) {
    if (served->info.resource != resource) continue;
    ASSERT_TRUE(served->informer->WaitForVersion(std::stoull(version), absl::Seconds(60)))
        << served->DisplayName() << " did not reach version " << version;
    return;
  }
  FAIL() << resource << " is not served";
}

}  // namespace informerd::testing
