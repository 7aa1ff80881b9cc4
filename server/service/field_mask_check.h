// CheckFieldMask: whether each path of a request's field mask names a field
// of the served resource's schema (step 3 of admission: it depends on what
// is served).
//
// Built-in kinds are checked against the k8s.io/api protobuf schemas
// informerd was built with (kube_proto::KubeProtobuf::CheckFieldPath);
// custom resources against their CRD's openAPIV3Schema when the server read
// it (ServedResource::crd_schema), metadata against ObjectMeta. Other kinds
// (aggregated APIs, CRDs it could not read, a leaf's resources) take any
// path the syntax allows (FieldMask::Parse checked it): one naming nothing
// selects nothing.
//
// Thread safety: pure function.
#ifndef INFORMERD_SERVER_SERVICE_FIELD_MASK_CHECK_H_
#define INFORMERD_SERVER_SERVICE_FIELD_MASK_CHECK_H_

#include <string>

#include "absl/status/status.h"
#include "google/protobuf/repeated_field.h"
#include "server/service/served_resource.h"

namespace informerd::service {

// INVALID_ARGUMENT naming the first path that names no field, e.g.
// `fields[1] "spec.nodeNmae": no field "nodeNmae" in k8s.io.api.core.v1.PodSpec`.
// REQUIRES: the paths passed FieldMask::Parse.
absl::Status CheckFieldMask(const ServedResource& resource,
                            const google::protobuf::RepeatedPtrField<std::string>& paths);

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_FIELD_MASK_CHECK_H_
