#include "server/service/field_mask_check.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/kube_proto/kube_protobuf.h"

namespace informerd::service {

absl::Status CheckFieldMask(const ServedResource& resource,
                            const google::protobuf::RepeatedPtrField<std::string>& paths) {
  if (paths.empty()) return absl::OkStatus();
  const kube_proto::KubeProtobuf& schemas = kube_proto::KubeProtobuf::Default();
  const std::string api_version = resource.info.group.empty()
                                      ? resource.info.version
                                      : absl::StrCat(resource.info.group, "/", resource.info.version);
  const bool built_in = schemas.Knows(api_version, resource.info.kind);
  if (!built_in && resource.crd_schema == nullptr) return absl::OkStatus();
  for (int i = 0; i < paths.size(); ++i) {
    absl::Status status;
    if (built_in) {
      status = schemas.CheckFieldPath(api_version, resource.info.kind, paths[i]);
    } else if (absl::StartsWith(paths[i], "metadata.")) {
      // CRD schemas leave metadata out: it is ObjectMeta, as every kind's
      // (a ConfigMap's stands for any).
      status = schemas.CheckFieldPath("v1", "ConfigMap", paths[i]);
    } else {
      status = resource.crd_schema->CheckPath(paths[i]);
    }
    if (status.ok()) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("fields[", i, "] \"", paths[i], "\": ", status.message()));
  }
  return absl::OkStatus();
}

}  // namespace informerd::service
