#include "bench/backfill_attack.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <httplib.h>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "bench/informerd_metrics.h"
#include "bench/proc_stats.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "rapidjson/document.h"

namespace informerd::bench {
namespace {

absl::StatusOr<std::string> ApiGet(const ApiserverTarget& apiserver, const std::string& path) {
  httplib::Client client(apiserver.url);
  client.set_ca_cert_path(apiserver.ca_file.c_str());
  client.set_bearer_token_auth(apiserver.token.c_str());
  auto response = client.Get(path);
  if (!response) {
    return absl::UnavailableError(absl::StrCat("GET ", apiserver.url, path, ": no answer"));
  }
  if (response->status != 200) {
    return absl::UnavailableError(
        absl::StrCat("GET ", apiserver.url, path, ": HTTP ", response->status));
  }
  return response->body;
}

std::string CollectionPath(const BackfillAttackOptions& options) {
  return options.group.empty()
             ? absl::StrCat("/api/", options.version, "/", options.resource)
             : absl::StrCat("/apis/", options.group, "/", options.version, "/", options.resource);
}

absl::StatusOr<size_t> CountObjects(const BackfillAttackOptions& options) {
  absl::StatusOr<std::string> body =
      ApiGet(options.apiserver, CollectionPath(options) + "?limit=1");
  if (!body.ok()) return body.status();
  rapidjson::Document list;
  list.Parse(body->data(), body->size());
  if (list.HasParseError() || !list.IsObject() || !list.HasMember("items") ||
      !list["items"].IsArray()) {
    return absl::UnavailableError("the apiserver's list is not a list");
  }
  size_t count = list["items"].Size();
  auto metadata = list.FindMember("metadata");
  if (metadata != list.MemberEnd() && metadata->value.IsObject()) {
    auto remaining = metadata->value.FindMember("remainingItemCount");
    if (remaining != metadata->value.MemberEnd() && remaining->value.IsUint64()) {
      count += remaining->value.GetUint64();
    }
  }
  return count;
}

absl::StatusOr<double> ListRequests(const BackfillAttackOptions& options) {
  absl::StatusOr<std::string> text = ApiGet(options.apiserver, "/metrics");
  if (!text.ok()) return text.status();
  return SumMetricSamples(*text, "apiserver_request_total",
                          {"verb=\"LIST\"", absl::StrCat("group=\"", options.group, "\""),
                           absl::StrCat(",resource=\"", options.resource, "\"")});
}

void Authorize(grpc::ClientContext* context, const BackfillAttackOptions& options) {
  if (!options.bearer_token.empty()) {
    context->AddMetadata("authorization", "Bearer " + options.bearer_token);
  }
}

// The oldest version informerd says a Watch of the resource can resume
// from, as the attacker sees it.
absl::StatusOr<uint64_t> OldestVersion(v1::Cache::Stub& stub,
                                       const BackfillAttackOptions& options) {
  grpc::ClientContext context;
  Authorize(&context, options);
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  v1::ListResourcesRequest request;
  request.set_namespace_(options.namespace_);
  v1::ListResourcesResponse response;
  grpc::Status status = stub.ListResources(&context, request, &response);
  if (!status.ok()) {
    return absl::UnavailableError(absl::StrCat("ListResources: ", status.error_message()));
  }
  for (const v1::ResourceStatus& served : response.resources()) {
    if (served.resource().group() != options.group ||
        served.resource().resource() != options.resource) {
      continue;
    }
    uint64_t oldest = 0;
    if (!absl::SimpleAtoi(served.oldest_resource_version(), &oldest) || oldest < 2) {
      return absl::UnavailableError(absl::StrCat("oldest_resource_version \"",
                                                 served.oldest_resource_version(), "\""));
    }
    return oldest;
  }
  return absl::NotFoundError(absl::StrCat("informerd does not serve ", options.resource));
}

// One resume from `version`: "" when the Watch started (its first message
// arrived, or informerd's oldest version came down to `version`: a resumed
// Watch with nothing to send is silent until its first bookmark, a minute
// on), else the status code's name.
std::string ResumeOnce(v1::Cache::Stub& stub, const BackfillAttackOptions& options,
                       uint64_t version) {
  grpc::ClientContext context;
  Authorize(&context, options);
  const absl::Time deadline = absl::Now() + options.round_timeout;
  context.set_deadline(absl::ToChronoTime(deadline));
  v1::WatchRequest request;
  request.mutable_resource()->set_group(options.group);
  request.mutable_resource()->set_version(options.version);
  request.mutable_resource()->set_resource(options.resource);
  request.set_namespace_(options.namespace_);
  request.set_resource_version(std::to_string(version));
  request.set_allow_bookmarks(true);
  std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> reader = stub.Watch(&context, request);
  bool got_message = false;
  grpc::Status status;
  absl::Notification ended;
  std::thread read([&] {
    v1::WatchEvent event;
    got_message = reader->Read(&event);
    if (!got_message) status = reader->Finish();
    ended.Notify();
  });
  bool resumed = false;
  while (!ended.WaitForNotificationWithTimeout(absl::Milliseconds(50))) {
    absl::StatusOr<uint64_t> oldest = OldestVersion(stub, options);
    if (oldest.ok() && *oldest <= version) {
      resumed = true;
      break;
    }
    if (absl::Now() > deadline) break;
  }
  const bool answered = ended.HasBeenNotified() && !resumed;
  context.TryCancel();
  read.join();
  if (got_message) reader->Finish();
  if (resumed || (answered && got_message)) return "";
  if (!answered) return "NO_ANSWER";
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code()));
}

double Ratio(size_t a, size_t b) { return b == 0 ? 0 : static_cast<double>(a) / b; }

}  // namespace

double BackfillAttackResult::rss_after_ratio() const { return Ratio(rss_after, rss_steady); }
double BackfillAttackResult::rss_peak_ratio() const { return Ratio(rss_peak, rss_steady); }
double BackfillAttackResult::extra_full_lists() const {
  return full_list_requests == 0 ? 0 : extra_list_requests / full_list_requests;
}

std::string BackfillAttackResult::Summary() const {
  std::string refused;
  for (const auto& [code, count] : refusals) {
    absl::StrAppend(&refused, refused.empty() ? "" : ",", code, ":", count);
  }
  constexpr double kMiB = 1024.0 * 1024.0;
  return absl::StrFormat(
      "backfill_attack rounds=%d resumed=%d refused=%s seconds=%.1f objects=%u "
      "rss_steady_mib=%.1f rss_after_mib=%.1f rss_peak_mib=%.1f rss_after_ratio=%.2f "
      "rss_peak_ratio=%.2f extra_list_requests=%.0f full_list_requests=%u "
      "extra_full_lists=%.2f windows=%d extra_full_lists_per_window=%.2f",
      rounds, resumed, refused.empty() ? "-" : refused, seconds, objects, rss_steady / kMiB,
      rss_after / kMiB, rss_peak / kMiB, rss_after_ratio(), rss_peak_ratio(),
      extra_list_requests, full_list_requests, extra_full_lists(), windows,
      extra_full_lists_per_window());
}

absl::StatusOr<BackfillAttackResult> RunBackfillAttack(const BackfillAttackOptions& options) {
  BackfillAttackResult result;
  absl::StatusOr<size_t> objects = CountObjects(options);
  if (!objects.ok()) return objects.status();
  result.objects = *objects;
  result.full_list_requests =
      std::max<size_t>(1, (*objects + options.page_size - 1) / options.page_size);

  auto resident = [pid = options.informerd_pid]() -> absl::StatusOr<size_t> {
    ProcStats stats = ReadProcStats(pid);
    if (!stats.ok) return absl::UnavailableError(absl::StrCat("no process ", pid));
    return stats.resident_bytes;
  };
  for (int i = 0; i < options.steady_samples; ++i) {
    absl::StatusOr<size_t> rss = resident();
    if (!rss.ok()) return rss.status();
    result.rss_steady = std::max(result.rss_steady, *rss);
    if (i + 1 < options.steady_samples) absl::SleepFor(absl::Milliseconds(100));
  }

  auto channel = grpc::CreateChannel(options.target, grpc::InsecureChannelCredentials());
  std::unique_ptr<v1::Cache::Stub> stub = v1::Cache::NewStub(channel);
  absl::StatusOr<double> lists_before = ListRequests(options);
  if (!lists_before.ok()) return lists_before.status();

  std::atomic<size_t> peak{result.rss_steady};
  absl::Notification attack_over;
  std::thread sampler([&] {
    do {
      absl::StatusOr<size_t> rss = resident();
      if (rss.ok() && *rss > peak.load()) peak = *rss;
    } while (!attack_over.WaitForNotificationWithTimeout(absl::Milliseconds(20)));
  });
  const absl::Time start = absl::Now();
  absl::Status failed;
  for (int round = 0; round < options.rounds; ++round) {
    absl::StatusOr<uint64_t> oldest = OldestVersion(*stub, options);
    if (!oldest.ok()) {
      failed = oldest.status();
      break;
    }
    const std::string refusal = ResumeOnce(*stub, options, *oldest - 1);
    ++result.rounds;
    if (refusal.empty()) {
      ++result.resumed;
    } else {
      ++result.refusals[refusal];
    }
  }
  result.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  result.windows = std::max<int>(
      1, static_cast<int>(std::ceil(result.seconds / absl::ToDoubleSeconds(options.window))));
  attack_over.Notify();
  sampler.join();
  if (!failed.ok()) return failed;

  absl::StatusOr<double> lists_after = ListRequests(options);
  if (!lists_after.ok()) return lists_after.status();
  result.extra_list_requests = *lists_after - *lists_before;
  absl::StatusOr<size_t> after = resident();
  if (!after.ok()) return after.status();
  result.rss_after = *after;
  result.rss_peak = std::max(peak.load(), result.rss_after);
  return result;
}

}  // namespace informerd::bench
