// Parses the resource names users type, as kubectl accepts them, into the
// ResourceName of the informerd API:
//
//   "pods"                  resource, group not given
//   "po", "deploy", ...     a built-in short name (group implied)
//   "deployments.apps"      resource.group
//   "deployments.v1.apps"   resource.version.group (second part is a version)
//   "/v1/pods"              /version/resource (core group)
//   "apps/v1/deployments"   group/version/resource
//
// Input is matched case-insensitively; the result is lower case. A name whose
// second dotted part looks like a version ("v1", "v2beta1") is read as
// resource.version.group, so a group whose first label looks like a version
// must be written as group/version/resource.

#ifndef INFORMERD_CLIENT_CPP_RESOURCE_REF_H_
#define INFORMERD_CLIENT_CPP_RESOURCE_REF_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace client {

struct ResourceRef {
  informerd::v1::ResourceName name;
  // False for a bare plural such as "deployments": the user did not say which
  // group, and a client that knows the served resources may choose one (as
  // kubectl does through discovery). Otherwise name.group is what was meant.
  bool group_explicit = false;
};

// INVALID_ARGUMENT, naming the input, when it has none of the forms above.
absl::StatusOr<ResourceRef> ParseResourceRef(absl::string_view input);

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_RESOURCE_REF_H_
