// Reads of admitted calls: a List's page, a Get's object, ListResources'
// statuses, each once its resource has reached the version asked for.
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/service/cache_service.h"
#include "server/service/version_waits.h"
#include "server/service/grpc_status.h"
#include "server/service/wire_format.h"

namespace informerd::service {

absl::StatusOr<ReplyForm> CacheService::FormFor(const char* method, v1::Projection projection,
                                                v1::Encoding encoding,
                                                const cache::FieldMask& mask) {
  ReplyForm form{projection, encoding, nullptr};
  if (mask.empty()) return form;
  absl::StatusOr<std::shared_ptr<const cache::FieldMask>> interned = field_masks_->Intern(mask);
  if (!interned.ok()) {
    metrics_->RequestRejected(method, "field_masks");
    return interned.status();
  }
  form.mask = *std::move(interned);
  return form;
}

CacheService::ReadPlan CacheService::PlanList(const ListAdmission& admitted, ReplyForm form,
                                              limits::ConcurrencyLimiter::Permit permit,
                                              grpc::ByteBuffer* response) const {
  ReadPlan plan;
  plan.resource = admitted.resource();
  plan.min_version = admitted.min_version();
  plan.read = [this, response, resource = admitted.resource(), filter = admitted.filter(),
               point = admitted.point(), scope = admitted.scope(),
               limit = static_cast<size_t>(admitted.request().limit()), form = std::move(form),
               held = std::make_shared<limits::ConcurrencyLimiter::Permit>(std::move(permit))] {
    absl::StatusOr<informer::Informer::Page> page = resource->informer->List(
        filter, point.resource_version, point.last_key, limit, options_.max_page_bytes);
    if (!page.ok()) {
      // An expired snapshot is the apiserver's 410 for continue tokens.
      return ToGrpc(page.status());
    }
    std::string token;
    if (page->more && !page->items.empty()) {
      token = continue_tokens_.Encode(
          scope, {page->resource_version, page->items.back()->key(), point.snapshot_time});
    }
    *response = ListResponseBuffer(page->items, page->resource_version, token, form);
    return grpc::Status::OK;
  };
  return plan;
}

CacheService::ReadPlan CacheService::PlanGet(const GetAdmission& admitted, ReplyForm form,
                                             grpc::ByteBuffer* response) const {
  ReadPlan plan;
  plan.resource = admitted.resource();
  plan.min_version = admitted.min_version();
  plan.read = [response, resource = admitted.resource(), ns = admitted.request().namespace_(),
               name = admitted.request().name(), form = std::move(form)] {
    auto [object, version] = resource->informer->Get(cache::ObjectKey(ns, name));
    if (object == nullptr) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat(resource->DisplayName(), " \"", name, "\" not found"));
    }
    *response = GetResponseBuffer(*object, version, form);
    return grpc::Status::OK;
  };
  return plan;
}

void CacheService::AnswerListResources(const ListResourcesAdmission& admitted,
                                       v1::ListResourcesResponse* response) const {
  for (auto [served, cluster_wide] : admitted.listed()) {
    informer::InformerStats stats = served->informer->stats();
    v1::ResourceStatus* status = response->add_resources();
    status->mutable_resource()->set_group(served->info.group);
    status->mutable_resource()->set_version(served->info.version);
    status->mutable_resource()->set_resource(served->info.resource);
    status->set_kind(served->info.kind);
    status->set_namespaced(served->info.namespaced);
    status->set_synced(stats.synced);
    if (cluster_wide) status->set_object_count(static_cast<int64_t>(stats.objects));
    status->set_resource_version(std::to_string(stats.resource_version));
    status->set_oldest_resource_version(std::to_string(stats.oldest_resource_version));
    status->set_history_events(static_cast<int64_t>(stats.history_events));
  }
}

absl::StatusOr<limits::ConcurrencyLimiter::Permit> CacheService::AdmitWait(const Caller& caller,
                                                                           const char* method) {
  bool per_identity = false;
  absl::StatusOr<limits::ConcurrencyLimiter::Permit> permit =
      waiting_read_limiter_.Acquire(caller.identity, &per_identity);
  if (!permit.ok()) {
    metrics_->RequestRejected(method, per_identity ? "identity_waiting_reads"
                                                   : "global_waiting_reads");
  }
  return permit;
}

void CacheService::FinishRead(grpc::ServerUnaryReactor* reactor, const char* method,
                              absl::Time start, const Caller& caller, ReadPlan plan) {
  if (Reached(*plan.resource->informer, plan.min_version)) {
    return FinishUnary(reactor, method, start, plan.read());
  }
  absl::StatusOr<limits::ConcurrencyLimiter::Permit> permit = AdmitWait(caller, method);
  if (!permit.ok()) return FinishUnary(reactor, method, start, ToGrpc(permit.status()));
  auto held = std::make_shared<limits::ConcurrencyLimiter::Permit>(*std::move(permit));
  version_waits_.Wait(
      plan.resource->informer.get(), plan.min_version, absl::Now() + options_.version_wait,
      [this, reactor, method, start, held, resource = plan.resource, version = plan.min_version,
       read = std::move(plan.read)](bool reached) {
        FinishUnary(reactor, method, start,
                    reached ? read() : ToGrpc(NotReached(*resource->informer, resource->DisplayName(), version)));
      });
}

}  // namespace informerd::service
