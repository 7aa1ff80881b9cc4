// The Kubernetes API's JSON framing around informerd's cached objects: a
// List envelope, watch event lines, and metav1.Status errors with the
// apiserver's reason and HTTP code for each gRPC status informerd answers.
//
// Objects are copied as informerd serialized them (one serialization per
// object); only the envelope is written here.
//
// Thread safety: pure functions.
#ifndef INFORMERD_SERVER_KUBEAPI_KUBE_JSON_H_
#define INFORMERD_SERVER_KUBEAPI_KUBE_JSON_H_

#include <string>
#include <string_view>

#include <grpcpp/support/status.h>

#include "informerd/v1/informerd.pb.h"

namespace informerd::kubeapi {

// What names the served resource in JSON.
struct TypeNames {
  std::string api_version;  // "v1", "apps/v1"
  std::string kind;         // "ConfigMap"
  std::string resource;     // "configmaps"
  std::string group;        // "" or "apps"
};

// A <Kind>List of `response`'s items. As the apiserver, items carry no
// apiVersion and kind: the members informerd's cache adds in front of each
// object are left out.
std::string ListJson(const TypeNames& type, const v1::ListResponse& response);

// One watch line: {"type":...,"object":...}\n. For a BOOKMARK, the
// apiserver's object of `type` with only metadata.resourceVersion (and the
// initial-events-end annotation).
std::string WatchLineJson(const TypeNames& type, const v1::WatchEvent& event);

// An HTTP error as the apiserver answers it.
struct ApiError {
  int code = 500;
  std::string status_json;  // a metav1.Status
};

// The metav1.Status for `status` (not OK). `name`: the object a Get asked
// for, named in a NotFound's details.
ApiError ErrorFor(const grpc::Status& status, const TypeNames* type = nullptr,
                  std::string_view name = "");
// A metav1.Status of `code` and `reason` saying `message`.
ApiError MakeError(int code, std::string_view reason, std::string_view message);

// An ERROR watch line carrying `error`'s Status.
std::string WatchErrorLine(const ApiError& error);

}  // namespace informerd::kubeapi

#endif  // INFORMERD_SERVER_KUBEAPI_KUBE_JSON_H_
