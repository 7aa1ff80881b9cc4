// The AdmissionRequest of each Cache RPC: how a List, Get, Watch or
// ListResources request is shaped, resolved against what is served and
// authorized (see admission.h for the order), and what it resolved to, for
// the reads and the watch launch that follow once it is admitted.
//
// Every field is validated and bounded before any of it reaches a
// SubjectAccessReview or a cache key; every error names the field.
//
// Thread safety: not thread-safe; one call's admission uses it from one
// thread at a time. The resolved ServedResource lives as long as the
// registry.
#ifndef INFORMERD_SERVER_SERVICE_ADMISSION_REQUESTS_H_
#define INFORMERD_SERVER_SERVICE_ADMISSION_REQUESTS_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "informerd/v1/informerd.pb.h"
#include "server/auth/reviewer.h"
#include "server/cache/field_mask.h"
#include "server/cache/filter.h"
#include "server/service/admission.h"
#include "server/service/continue_token.h"
#include "server/service/served_resource.h"

namespace informerd::service {

// A List: needs "list" (in its namespace, or cluster-wide); takes a slot
// under the Lists' limits.
class ListAdmission final : public AdmissionRequest {
 public:
  // `request` (the serialized message) must live until Shape has run;
  // `continue_tokens` as long as this.
  ListAdmission(const grpc::ByteBuffer* request, const ContinueTokens* continue_tokens)
      : buffer_(request), continue_tokens_(continue_tokens) {}

  const char* method() const override { return "List"; }
  Limit limit() const override { return Limit::kLists; }
  grpc::Status Shape() override;
  std::optional<grpc::Status> Authorize(const Permissions& permissions) override;

  // After Shape.
  const v1::ListRequest& request() const { return request_; }
  // The request's field mask, parsed (empty: none).
  const cache::FieldMask& mask() const { return mask_; }
  // After Resolve.
  ServedResource* resource() const { return resource_; }
  const cache::Filter& filter() const { return filter_; }
  const ContinueScope& scope() const { return scope_; }
  const ContinuePoint& point() const { return point_; }
  // The version the cache must have reached: later pages read their
  // snapshot, whatever the cache's version.
  uint64_t min_version() const { return request_.continue_token().empty() ? version_ : 0; }

 protected:
  grpc::Status DoResolve(const ResourceRegistry& registry) override;

 private:
  const grpc::ByteBuffer* const buffer_;
  const ContinueTokens* const continue_tokens_;
  v1::ListRequest request_;
  cache::FieldMask mask_;
  uint64_t version_ = 0;
  ServedResource* resource_ = nullptr;
  cache::Filter filter_;
  ContinueScope scope_;
  ContinuePoint point_;
};

// A Get: needs "get" on the object's name; no concurrency slot (it is one
// lookup).
class GetAdmission final : public AdmissionRequest {
 public:
  explicit GetAdmission(const grpc::ByteBuffer* request) : buffer_(request) {}

  const char* method() const override { return "Get"; }
  Limit limit() const override { return Limit::kNone; }
  grpc::Status Shape() override;
  std::optional<grpc::Status> Authorize(const Permissions& permissions) override;

  const v1::GetRequest& request() const { return request_; }
  const cache::FieldMask& mask() const { return mask_; }
  uint64_t min_version() const { return version_; }
  ServedResource* resource() const { return resource_; }

 protected:
  grpc::Status DoResolve(const ResourceRegistry& registry) override;

 private:
  const grpc::ByteBuffer* const buffer_;
  v1::GetRequest request_;
  cache::FieldMask mask_;
  uint64_t version_ = 0;
  ServedResource* resource_ = nullptr;
};

// A Watch: needs "watch"; takes a slot under the Watches' limits, held by
// its stream.
class WatchAdmission final : public AdmissionRequest {
 public:
  explicit WatchAdmission(const grpc::ByteBuffer* request) : buffer_(request) {}

  const char* method() const override { return "Watch"; }
  Limit limit() const override { return Limit::kWatches; }
  grpc::Status Shape() override;
  std::optional<grpc::Status> Authorize(const Permissions& permissions) override;

  const v1::WatchRequest& request() const { return request_; }
  const cache::FieldMask& mask() const { return mask_; }
  ServedResource* resource() const { return resource_; }
  const cache::Filter& filter() const { return filter_; }
  uint64_t version() const { return version_; }
  // What the stream's re-checks ask.
  const auth::ResourceAttributes& attributes() const { return attributes_; }

 protected:
  grpc::Status DoResolve(const ResourceRegistry& registry) override;

 private:
  const grpc::ByteBuffer* const buffer_;
  v1::WatchRequest request_;
  cache::FieldMask mask_;
  ServedResource* resource_ = nullptr;
  cache::Filter filter_;
  uint64_t version_ = 0;
  auth::ResourceAttributes attributes_;
};

// ListResources: shows the served resources the caller may list (in its
// namespace, or cluster-wide) and nothing of the others; it refuses
// nothing for permissions. No concurrency slot.
class ListResourcesAdmission final : public AdmissionRequest {
 public:
  // `request` must live as long as this.
  explicit ListResourcesAdmission(const v1::ListResourcesRequest* request) : request_(request) {}

  const char* method() const override { return "ListResources"; }
  Limit limit() const override { return Limit::kNone; }
  grpc::Status Shape() override;
  std::optional<grpc::Status> Authorize(const Permissions& permissions) override;

  // After Authorize: the resources the caller may list, each with whether
  // it may list them cluster-wide (then it sees their object counts).
  const std::vector<std::pair<ServedResource*, bool>>& listed() const { return listed_; }

 protected:
  grpc::Status DoResolve(const ResourceRegistry& registry) override;

 private:
  const v1::ListResourcesRequest* const request_;
  std::vector<ServedResource*> served_;
  std::vector<std::pair<ServedResource*, bool>> listed_;
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_ADMISSION_REQUESTS_H_
