// How `informerctl get` prints objects: a table, kubectl's JSON, or names.
// Every result ends in a newline unless it is empty.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_GET_FORMAT_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_GET_FORMAT_H_

#include <string>
#include <vector>

#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace informerctl {

// [NAMESPACE] NAME RESOURCE-VERSION with a header row.
std::string FormatObjectTable(const std::vector<informerd::v1::Object>& objects,
                              bool with_namespace);

// kubectl's list envelope with each object's JSON embedded verbatim:
// {"apiVersion":"v1","kind":"List","items":[...],
//  "metadata":{"resourceVersion":"..."}}
std::string FormatListJson(const std::vector<informerd::v1::Object>& objects,
                           const std::string& resource_version);

// One "<display name>/<name>" line per object, e.g. "configmaps/foo".
std::string FormatObjectNames(const std::vector<informerd::v1::Object>& objects,
                              const std::string& resource_display_name);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_GET_FORMAT_H_
