#include "server/service/admission_requests.h"

#include <string>

#include <grpcpp/impl/codegen/proto_utils.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/cache/resource_version.h"
#include "server/service/field_mask_check.h"
#include "server/service/grpc_status.h"
#include "server/service/request_filter.h"

namespace informerd::service {
namespace {

// Object names are DNS subdomains at most; longer is never a real object.
constexpr size_t kMaxNameBytes = 253;

grpc::Status Invalid(const std::string& message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message);
}

template <typename Message>
grpc::Status ParseRequest(const grpc::ByteBuffer& buffer, Message* message) {
  grpc::ByteBuffer copy(buffer);
  grpc::Status status = grpc::SerializationTraits<Message>::Deserialize(&copy, message);
  if (!status.ok()) return Invalid("request: not a valid protobuf message");
  return grpc::Status::OK;
}

// Proto3 enums are open: an unknown number parses and must be refused here.
grpc::Status CheckProjection(v1::Projection projection) {
  if (v1::Projection_IsValid(projection)) return grpc::Status::OK;
  return Invalid(absl::StrCat("projection: unknown value ", static_cast<int>(projection),
                              " (PROJECTION_FULL = 0 or PROJECTION_METADATA = 1)"));
}

grpc::Status CheckEncoding(v1::Encoding encoding) {
  if (v1::Encoding_IsValid(encoding)) return grpc::Status::OK;
  return Invalid(absl::StrCat("encoding: unknown value ", static_cast<int>(encoding),
                              " (ENCODING_JSON = 0 or ENCODING_PROTOBUF = 1)"));
}

// "" (0) or a decimal version; the field name goes into the error.
grpc::Status ParseVersion(const std::string& text, const char* field, uint64_t* version) {
  *version = 0;
  if (text.empty()) return grpc::Status::OK;
  std::optional<uint64_t> parsed = cache::ParseResourceVersion(text);
  if (!parsed.has_value()) {
    return Invalid(absl::StrCat(field, ": ", Quoted(text), " is not a decimal resource version"));
  }
  *version = *parsed;
  return grpc::Status::OK;
}

// The request's mask, parsed; PROJECTION_METADATA adds metadata to it.
grpc::Status ParseMask(const google::protobuf::RepeatedPtrField<std::string>& fields,
                       v1::Projection projection, cache::FieldMask* mask) {
  absl::StatusOr<cache::FieldMask> parsed = cache::FieldMask::Parse(
      {fields.begin(), fields.end()}, projection == v1::PROJECTION_METADATA);
  if (!parsed.ok()) return ToGrpc(parsed.status());
  *mask = *std::move(parsed);
  return grpc::Status::OK;
}

// The checks common to List, Get and Watch that do not depend on what is
// served: answering them tells an unauthenticated peer nothing about the
// served resources, and nothing unbounded reaches a review.
grpc::Status CheckCommonShape(const v1::ResourceName& resource, const std::string& ns,
                              v1::Projection projection, const std::string& version,
                              const char* version_field, uint64_t* parsed_version) {
  if (absl::Status status = CheckResourceName(resource); !status.ok()) return ToGrpc(status);
  if (!ns.empty()) {
    if (absl::Status status = CheckNamespaceName(ns); !status.ok()) return ToGrpc(status);
  }
  if (grpc::Status status = CheckProjection(projection); !status.ok()) return status;
  return ParseVersion(version, version_field, parsed_version);
}

// Step 4 of a read of one resource: `attributes` (verb, namespace, name)
// on `resource`.
std::optional<grpc::Status> AuthorizeRead(const Permissions& permissions,
                                          const ServedResource& resource,
                                          auth::ResourceAttributes attributes) {
  attributes.group = resource.info.group;
  attributes.resource = resource.info.resource;
  std::optional<absl::Status> status = permissions.Check(attributes);
  if (!status.has_value()) return std::nullopt;
  if (status->ok()) return grpc::Status::OK;
  std::string message(status->message());
  if (status->code() == absl::StatusCode::kPermissionDenied && resource.info.namespaced &&
      attributes.namespace_.empty()) {
    absl::StrAppend(&message, "; set namespace");
  }
  return ToGrpc(*status, std::move(message));
}

}  // namespace

grpc::Status ListAdmission::Shape() {
  if (grpc::Status status = ParseRequest(*buffer_, &request_); !status.ok()) return status;
  if (request_.limit() < 0) return Invalid("limit: must not be negative");
  if (request_.continue_token().size() > kMaxContinueTokenBytes) {
    return Invalid(absl::StrCat("continue_token: longer than ", kMaxContinueTokenBytes, " bytes"));
  }
  if (grpc::Status status = CheckEncoding(request_.encoding()); !status.ok()) return status;
  if (grpc::Status status = CheckCommonShape(request_.resource(), request_.namespace_(),
                                             request_.projection(), request_.resource_version(),
                                             "resource_version", &version_);
      !status.ok()) {
    return status;
  }
  return ParseMask(request_.fields(), request_.projection(), &mask_);
}

grpc::Status ListAdmission::DoResolve(const ResourceRegistry& registry) {
  absl::StatusOr<ServedResource*> resource = registry.Find(request_.resource());
  if (!resource.ok()) return ToGrpc(resource.status());
  if (absl::Status status = CheckFieldMask(**resource, request_.fields()); !status.ok()) {
    return ToGrpc(status);
  }
  absl::StatusOr<cache::Filter> filter =
      MakeFilter(**resource, {request_.namespace_(), request_.label_selector(),
                              request_.field_selector(), request_.index_name(),
                              request_.index_value()});
  if (!filter.ok()) return ToGrpc(filter.status());
  scope_ = {absl::StrCat((*resource)->DisplayName(), "/", (*resource)->info.version),
            request_.namespace_(),
            request_.label_selector(),
            request_.field_selector(),
            request_.index_name(),
            request_.index_value()};
  point_ = {0, "", absl::Now()};
  if (!request_.continue_token().empty()) {
    absl::StatusOr<ContinuePoint> decoded =
        continue_tokens_->Decode(scope_, request_.continue_token());
    if (!decoded.ok()) return ToGrpc(decoded.status());
    point_ = *std::move(decoded);
  }
  resource_ = *resource;
  filter_ = *std::move(filter);
  return grpc::Status::OK;
}

std::optional<grpc::Status> ListAdmission::Authorize(const Permissions& permissions) {
  return AuthorizeRead(permissions, *resource_, {"list", "", "", request_.namespace_(), ""});
}

grpc::Status GetAdmission::Shape() {
  if (grpc::Status status = ParseRequest(*buffer_, &request_); !status.ok()) return status;
  if (request_.name().empty()) return Invalid("name: required");
  if (request_.name().size() > kMaxNameBytes) {
    return Invalid(absl::StrCat("name: longer than ", kMaxNameBytes, " characters"));
  }
  if (grpc::Status status = CheckEncoding(request_.encoding()); !status.ok()) return status;
  if (grpc::Status status = CheckCommonShape(request_.resource(), request_.namespace_(),
                                             request_.projection(),
                                             request_.min_resource_version(),
                                             "min_resource_version", &version_);
      !status.ok()) {
    return status;
  }
  return ParseMask(request_.fields(), request_.projection(), &mask_);
}

grpc::Status GetAdmission::DoResolve(const ResourceRegistry& registry) {
  absl::StatusOr<ServedResource*> resource = registry.Find(request_.resource());
  if (!resource.ok()) return ToGrpc(resource.status());
  if (absl::Status status = CheckFieldMask(**resource, request_.fields()); !status.ok()) {
    return ToGrpc(status);
  }
  if ((*resource)->info.namespaced && request_.namespace_().empty()) {
    return Invalid(absl::StrCat("namespace: required for ", (*resource)->DisplayName()));
  }
  if (!(*resource)->info.namespaced && !request_.namespace_().empty()) {
    return Invalid(absl::StrCat("namespace: ", (*resource)->DisplayName(),
                                " is cluster-scoped; leave namespace empty"));
  }
  resource_ = *resource;
  return grpc::Status::OK;
}

std::optional<grpc::Status> GetAdmission::Authorize(const Permissions& permissions) {
  return AuthorizeRead(permissions, *resource_,
                       {"get", "", "", request_.namespace_(), request_.name()});
}

grpc::Status WatchAdmission::Shape() {
  if (grpc::Status status = ParseRequest(*buffer_, &request_); !status.ok()) return status;
  if (grpc::Status status = CheckEncoding(request_.encoding()); !status.ok()) return status;
  if (grpc::Status status = CheckCommonShape(request_.resource(), request_.namespace_(),
                                             request_.projection(), request_.resource_version(),
                                             "resource_version", &version_);
      !status.ok()) {
    return status;
  }
  return ParseMask(request_.fields(), request_.projection(), &mask_);
}

grpc::Status WatchAdmission::DoResolve(const ResourceRegistry& registry) {
  absl::StatusOr<ServedResource*> resource = registry.Find(request_.resource());
  if (!resource.ok()) return ToGrpc(resource.status());
  if (absl::Status status = CheckFieldMask(**resource, request_.fields()); !status.ok()) {
    return ToGrpc(status);
  }
  absl::StatusOr<cache::Filter> filter =
      MakeFilter(**resource, {request_.namespace_(), request_.label_selector(),
                              request_.field_selector(), "", ""});
  if (!filter.ok()) return ToGrpc(filter.status());
  resource_ = *resource;
  filter_ = *std::move(filter);
  attributes_ = {"watch", resource_->info.group, resource_->info.resource, request_.namespace_(),
                 ""};
  return grpc::Status::OK;
}

std::optional<grpc::Status> WatchAdmission::Authorize(const Permissions& permissions) {
  return AuthorizeRead(permissions, *resource_, attributes_);
}

grpc::Status ListResourcesAdmission::Shape() {
  if (request_->namespace_().empty()) return grpc::Status::OK;
  return ToGrpc(CheckNamespaceName(request_->namespace_()));
}

grpc::Status ListResourcesAdmission::DoResolve(const ResourceRegistry& registry) {
  served_ = registry.all();
  return grpc::Status::OK;
}

std::optional<grpc::Status> ListResourcesAdmission::Authorize(const Permissions& permissions) {
  // A caller sees the resources it may list, and nothing of the others:
  // their names and object counts are not its business. A review that
  // fails hides the resource rather than failing the call.
  const std::string& ns = request_->namespace_();
  std::vector<std::pair<ServedResource*, bool>> listed;
  for (ServedResource* served : served_) {
    std::optional<absl::Status> cluster_wide =
        permissions.Check({"list", served->info.group, served->info.resource, "", ""});
    if (!cluster_wide.has_value()) return std::nullopt;
    bool in_namespace = false;
    if (!cluster_wide->ok() && !ns.empty() && served->info.namespaced) {
      std::optional<absl::Status> allowed =
          permissions.Check({"list", served->info.group, served->info.resource, ns, ""});
      if (!allowed.has_value()) return std::nullopt;
      in_namespace = allowed->ok();
    }
    if (cluster_wide->ok() || in_namespace) listed.emplace_back(served, cluster_wide->ok());
  }
  listed_ = std::move(listed);
  return grpc::Status::OK;
}

}  // namespace informerd::service
