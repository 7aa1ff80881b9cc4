// How `informerctl get` prints objects: kubectl's table (columns.h), JSON,
// YAML, or names. Every result ends in a newline unless it is empty.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_GET_FORMAT_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_GET_FORMAT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/cpp/informerctl/columns.h"
#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace informerctl {

// A header row, then one row per object, in kubectl's columns for resource.
std::string FormatObjectTable(const informerd::v1::ResourceName& resource,
                              const std::vector<informerd::v1::Object>& objects,
                              const TableOptions& options);

// kubectl's list envelope with each object's JSON embedded verbatim:
// {"apiVersion":"v1","kind":"List","items":[...],
//  "metadata":{"resourceVersion":"..."}}
std::string FormatListJson(const std::vector<informerd::v1::Object>& objects,
                           const std::string& resource_version);

// The object, or the list envelope above, as YAML (yaml_text.h).
// INVALID_ARGUMENT when an object's JSON does not parse.
absl::StatusOr<std::string> FormatObjectYaml(const informerd::v1::Object& object);
absl::StatusOr<std::string> FormatListYaml(
    const std::vector<informerd::v1::Object>& objects,
    const std::string& resource_version);

// kubectl's -o name: one "<kind>[.<group>]/<name>" line per object, the kind
// lower-cased, e.g. "configmap/foo", "deployment.apps/web". Without a kind,
// the resource's plural stands in for it.
std::string FormatObjectNames(const std::vector<informerd::v1::Object>& objects,
                              const informerd::v1::ResourceStatus& resource);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_GET_FORMAT_H_
