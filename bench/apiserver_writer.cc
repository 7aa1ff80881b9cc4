#include "bench/measurement.h"
#include "bench/apiserver_writer.h"

#include <cstdio>

#include <chrono>
#include <thread>

#include <httplib.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "rapidjson/document.h"
#include "server/cache/resource_version.h"

namespace informerd::bench {
namespace {

std::string ObjectName(size_t index) { return absl::StrCat("fanout-", index); }

// ConfigMap data of `bytes` bytes, unique for each run and sequence.
std::string Payload(const std::string& run_id, uint64_t sequence, size_t bytes) {
  std::string value = absl::StrCat(run_id, "-", sequence, "-");
  value.resize(bytes, 'x');
  return value;
}

}  // namespace

ApiserverWriter::ApiserverWriter(ApiserverTarget target, size_t objects, size_t object_bytes)
    : target_(std::move(target)),
      objects_(objects),
      object_bytes_(object_bytes),
      client_(std::make_unique<httplib::Client>(target_.url)),
      run_id_(absl::StrCat(absl::ToUnixNanos(absl::Now()))) {
  client_->set_ca_cert_path(target_.ca_file.c_str());
  client_->set_bearer_token_auth(target_.token.c_str());
  client_->set_keep_alive(true);
}

ApiserverWriter::~ApiserverWriter() = default;

absl::Status ApiserverWriter::Prepare() {
  const std::string ns = absl::StrCat(
      "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"", target_.namespace_,
      "\"}}");
  auto created = client_->Post("/api/v1/namespaces", ns, "application/json");
  if (!created || (created->status != 201 && created->status != 409)) {
    return absl::UnavailableError(absl::StrCat("creating namespace ", target_.namespace_,
                                               ": HTTP ", created ? created->status : 0));
  }
  for (size_t i = 0; i < objects_; ++i) {
    const std::string body = absl::StrCat(
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"", ObjectName(i),
        "\",\"labels\":{\"app\":\"fanout\"}},\"data\":{\"value\":\"", Payload(run_id_, 0, object_bytes_),
        "\"}}");
    auto response = client_->Post(
        absl::StrCat("/api/v1/namespaces/", target_.namespace_, "/configmaps"), body,
        "application/json");
    if (!response || (response->status != 201 && response->status != 409)) {
      return absl::UnavailableError(absl::StrCat("creating configmap ", ObjectName(i),
                                                 ": HTTP ", response ? response->status : 0));
    }
  }
  return absl::OkStatus();
}

absl::Status ApiserverWriter::Patch(uint64_t sequence, Write* write) {
  const std::string body =
      absl::StrCat("{\"data\":{\"value\":\"", Payload(run_id_, sequence, object_bytes_), "\"}}");
  auto response = client_->Patch(absl::StrCat("/api/v1/namespaces/", target_.namespace_,
                                              "/configmaps/", ObjectName(sequence % objects_)),
                                 body, "application/merge-patch+json");
  write->response_ns = SteadyNanos();
  if (!response || response->status != 200) {
    return absl::UnavailableError(
        absl::StrCat("patch ", sequence, ": HTTP ", response ? response->status : 0));
  }
  rapidjson::Document object;
  object.Parse(response->body.data(), response->body.size());
  std::optional<uint64_t> version;
  if (!object.HasParseError() && object.IsObject() && object.HasMember("metadata") &&
      object["metadata"].IsObject() && object["metadata"].HasMember("resourceVersion") &&
      object["metadata"]["resourceVersion"].IsString()) {
    version = cache::ParseResourceVersion(object["metadata"]["resourceVersion"].GetString());
  }
  if (!version.has_value()) {
    return absl::DataLossError(absl::StrCat("patch ", sequence, ": no metadata.resourceVersion"));
  }
  write->resource_version = *version;
  return absl::OkStatus();
}

absl::Status ApiserverWriter::Run(double rate, absl::Duration duration,
                                  const std::atomic<bool>* recording) {
  const auto start = std::chrono::steady_clock::now();
  const auto interval = std::chrono::nanoseconds(static_cast<int64_t>(1e9 / rate));
  const uint64_t count = static_cast<uint64_t>(absl::ToDoubleSeconds(duration) * rate);
  for (uint64_t i = 0; i < count; ++i) {
    // Fixed schedule: a slow write does not shift later ones.
    std::this_thread::sleep_until(start + interval * i);
    Write write;
    if (absl::Status status = Patch(++sequence_, &write); !status.ok()) return status;
    if (recording->load()) writes_.push_back(write);
  }
  return absl::OkStatus();
}

bool ApiserverWriter::RunRecorded(double rate, absl::Duration duration) {
  static const std::atomic<bool> kRecording{true};
  absl::Status status = Run(rate, duration, &kRecording);
  if (!status.ok()) std::fprintf(stderr, "writer: %s\n", status.ToString().c_str());
  return status.ok();
}

}  // namespace informerd::bench
