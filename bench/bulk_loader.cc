// bulk_loader: creates many objects in one namespace through the
// kube-apiserver with several concurrent HTTPS clients, for the cold-sync
// benchmark (bench/coldsync.sh). Objects that already exist (409) count as
// created, so a second run completes a partial load.
//
//   --resource=configmaps  ConfigMaps with one data value of --object_bytes
//   --resource=pods        the pods of bench/pod_fixture (about 12 KB served),
//                          with automountServiceAccountToken: false; created
//                          without the fields only the server may set, then
//                          given the fixture's status through the status
//                          subresource (a create drops it), so that they are
//                          served as a running pod is, status and its
//                          managedFields entry included
#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/apiserver_flags.h"
#include "bench/measurement.h"
#include "bench/pod_fixture.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

ABSL_FLAG(std::string, resource, "configmaps", "configmaps or pods");
ABSL_FLAG(int, count, 10000, "objects to create");
ABSL_FLAG(int, first, 0, "index of the first object to create (a partial load resumed)");
ABSL_FLAG(int, object_bytes, 10240, "ConfigMap data size");
ABSL_FLAG(int, concurrency, 8, "concurrent clients");

namespace informerd::bench {
namespace {

std::string ConfigMapBody(const std::string& namespace_, int index, int bytes) {
  return absl::StrCat("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm-",
                      index, "\",\"namespace\":\"", namespace_,
                      "\",\"labels\":{\"app\":\"coldsync\",\"shard\":\"", index % 10,
                      "\"}},\"data\":{\"value\":\"", std::string(bytes, 'x'), "\"}}");
}

rapidjson::Document FixturePod(int index) {
  rapidjson::Document pod;
  const std::string served = PodJson(index, 1);
  pod.Parse(served.data(), served.size());
  return pod;
}

std::string ToJson(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// The fixture pod as a create request: the fields the server sets (uid,
// resourceVersion, creationTimestamp, managedFields, status) removed.
std::string PodBody(const std::string& namespace_, int index) {
  rapidjson::Document pod = FixturePod(index);
  if (pod.HasParseError() || !pod.IsObject()) return "";
  rapidjson::Value& metadata = pod["metadata"];
  for (const char* field : {"uid", "resourceVersion", "creationTimestamp", "managedFields",
                            "ownerReferences"}) {
    metadata.RemoveMember(field);
  }
  metadata["namespace"].SetString(namespace_.c_str(), pod.GetAllocator());
  pod.RemoveMember("status");
  rapidjson::Value& spec = pod["spec"];
  spec.RemoveMember("automountServiceAccountToken");
  spec.AddMember("automountServiceAccountToken", false, pod.GetAllocator());
  return ToJson(pod);
}

// The fixture pod's status subresource path under `pods_path`, and a merge
// patch that gives it the fixture's status.
struct StatusPatch {
  std::string path;
  std::string body;
};
StatusPatch PodStatusPatch(const std::string& pods_path, int index) {
  rapidjson::Document pod = FixturePod(index);
  if (pod.HasParseError() || !pod.IsObject() || !pod.HasMember("status")) return {};
  return {absl::StrCat(pods_path, "/", pod["metadata"]["name"].GetString(), "/status"),
          absl::StrCat("{\"status\":", ToJson(pod["status"]), "}")};
}

int Run() {
  const ApiserverTarget apiserver = ApiserverTargetFromFlags();
  const std::string& url = apiserver.url;
  const std::string& ca_file = apiserver.ca_file;
  const std::string& token = apiserver.token;
  const std::string& ns = apiserver.namespace_;
  const std::string resource = absl::GetFlag(FLAGS_resource);
  const int count = absl::GetFlag(FLAGS_count);
  if (resource != "configmaps" && resource != "pods") {
    std::fprintf(stderr, "--resource: want configmaps or pods, got %s\n", resource.c_str());
    return 2;
  }
  auto new_client = [&] {
    auto client = std::make_unique<httplib::Client>(url);
    client->set_ca_cert_path(ca_file.c_str());
    client->set_bearer_token_auth(token.c_str());
    client->set_keep_alive(true);
    return client;
  };
  auto created_ns = new_client()->Post(
      "/api/v1/namespaces",
      absl::StrCat("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"", ns,
                   "\"}}"),
      "application/json");
  if (!created_ns || (created_ns->status != 201 && created_ns->status != 409)) {
    std::fprintf(stderr, "namespace %s: HTTP %d\n", ns.c_str(),
                 created_ns ? created_ns->status : 0);
    return 1;
  }
  const std::string path = absl::StrCat("/api/v1/namespaces/", ns, "/", resource);
  std::atomic<int> next{absl::GetFlag(FLAGS_first)};
  std::atomic<int> failed{0};
  const absl::Time start = absl::Now();
  std::vector<std::thread> threads;
  for (int t = 0; t < absl::GetFlag(FLAGS_concurrency); ++t) {
    threads.emplace_back([&] {
      auto client = new_client();
      for (int i = next++; i < count; i = next++) {
        const std::string body = resource == "pods"
                                     ? PodBody(ns, i)
                                     : ConfigMapBody(ns, i, absl::GetFlag(FLAGS_object_bytes));
        // A failed step, by name: at most 5 are printed.
        auto fail = [&](const char* step, const httplib::Result& response) {
          if (failed++ < 5) {
            std::fprintf(stderr, "%s %d: %s: HTTP %d %s\n", resource.c_str(), i, step,
                         response ? response->status : 0,
                         response ? response->body.substr(0, 300).c_str() : "");
          }
        };
        auto created = client->Post(path, body, "application/json");
        if (!created || (created->status != 201 && created->status != 409)) {
          fail("create", created);
          continue;
        }
        if (resource == "pods") {
          const StatusPatch patch = PodStatusPatch(path, i);
          auto patched = client->Patch(patch.path, patch.body, "application/merge-patch+json");
          if (!patched || patched->status != 200) fail("status patch", patched);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::printf("created %d %s in %s in %.1f s (%d failed)\n",
              count - absl::GetFlag(FLAGS_first) - failed.load(),
              resource.c_str(), ns.c_str(), absl::ToDoubleSeconds(absl::Now() - start),
              failed.load());
  return failed.load() == 0 ? 0 : 1;
}

}  // namespace
}  // namespace informerd::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return informerd::bench::Run();
}
