// CrdSchema: a custom resource's openAPIV3Schema (the served version's, from
// its CustomResourceDefinition), for checking field-mask paths of kinds the
// k8s.io/api schemas do not cover.
//
// A path names a field when each segment is a member of `properties`, a key
// of a map (`additionalProperties`), or anything below a schema with
// `x-kubernetes-preserve-unknown-fields: true` (or `additionalProperties:
// true`); a path through an array (`items`) names a field of its elements.
// metadata is not described by CRD schemas: its paths are the caller's to
// check (FieldMask paths starting "metadata" are answered true here).
//
// The schema is the one read when the resource was discovered: a CRD
// changed later is checked against its old schema until informerd restarts.
//
// Thread safety: immutable; share freely.
#ifndef INFORMERD_SERVER_SERVICE_CRD_SCHEMA_H_
#define INFORMERD_SERVER_SERVICE_CRD_SCHEMA_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "server/kube/discovery.h"
#include "server/kube/rest_client.h"

namespace informerd::service {

class CrdSchema {
 public:
  // From a CustomResourceDefinition's JSON: the openAPIV3Schema of
  // `version`. NOT_FOUND when the CRD has no schema for it; INVALID_ARGUMENT
  // when the JSON is not a CRD.
  static absl::StatusOr<std::shared_ptr<const CrdSchema>> FromCrd(std::string_view crd_json,
                                                                  std::string_view version,
                                                                  std::string name);

  // OK when `path` names a field; INVALID_ARGUMENT naming the segment and
  // where in the schema it was looked for, e.g. `no field "colr" in the
  // schema of widgets.example.com at spec`.
  absl::Status CheckPath(std::string_view path) const;

 private:
  CrdSchema() = default;

  std::string name_;  // "widgets.example.com", for the messages
  rapidjson::Document document_;
  const rapidjson::Value* schema_ = nullptr;  // into document_
};

// The schema of `info`'s custom resource from the apiserver's
// CustomResourceDefinition, or null when there is none to read: a built-in
// group, no CRD, no schema, or the CRD not readable (RBAC): masks of the
// resource are then not checked.
std::shared_ptr<const CrdSchema> FetchCrdSchema(kube::RestClient& client,
                                                const kube::ResourceInfo& info);

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_CRD_SCHEMA_H_
