// MakeFilter: validates the selection fields of a List or Watch request and
// turns them into a cache::Filter. Every error is INVALID_ARGUMENT and names
// the request field and the reason.
#ifndef INFORMERD_SERVER_SERVICE_REQUEST_FILTER_H_
#define INFORMERD_SERVER_SERVICE_REQUEST_FILTER_H_

#include <string>

#include "absl/status/statusor.h"
#include "server/cache/filter.h"
#include "server/service/served_resource.h"

namespace informerd::service {

struct FilterRequest {
  std::string namespace_;
  std::string label_selector;
  std::string field_selector;
  std::string index_name;
  std::string index_value;
};

// `text` quoted for an error message, cut to its first 64 bytes: errors
// name what was wrong without carrying (or echoing) an unbounded request.
std::string Quoted(const std::string& text);

// OK, or INVALID_ARGUMENT naming "namespace" when `name` is not a DNS-1123
// label. REQUIRES: !name.empty().
absl::Status CheckNamespaceName(const std::string& name);

absl::StatusOr<cache::Filter> MakeFilter(const ServedResource& resource,
                                         const FilterRequest& request);

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_REQUEST_FILTER_H_
