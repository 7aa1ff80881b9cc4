// ReadRequest: a Kubernetes API GET of a served resource as the
// informerd.v1.Cache request that answers it, or why informerd's cache does
// not answer it (the request then passes through to the apiserver, which
// does).
//
// The apiserver's query parameters map onto the gRPC fields they mean:
//   list   labelSelector, fieldSelector, limit, continue; resourceVersion
//          unset or "0" (informerd's latest state), or N with
//          resourceVersionMatch=NotOlderThan (or unset, without limit)
//          as "not older than N".
//   get    resourceVersion as the least version the answer reflects.
//   watch  watch=1|true; resourceVersion unset (from now), "0" (the state
//          as ADDED events first), N (resume); sendInitialEvents=true
//          (WatchList); allowWatchBookmarks; timeoutSeconds.
// What informerd's semantics do not have goes to the apiserver:
// resourceVersionMatch=Exact, a resourceVersion N with limit and no match
// (the apiserver reads that as Exact), and any other resourceVersionMatch.
// Malformed values (limit, timeoutSeconds, booleans) are a 400 naming the
// parameter, as at the apiserver.
//
// Thread safety: pure functions.
#ifndef INFORMERD_SERVER_KUBEAPI_READ_REQUEST_H_
#define INFORMERD_SERVER_KUBEAPI_READ_REQUEST_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "informerd/v1/informerd.pb.h"
#include "server/kubeapi/api_path.h"

namespace informerd::kubeapi {

struct ReadRequest {
  enum class Kind { kList, kGet, kWatch, kPassThrough };
  Kind kind = Kind::kPassThrough;
  v1::ListRequest list;
  v1::GetRequest get;
  v1::WatchRequest watch;
  // Whether the watch's client asked for BOOKMARK events (informerd's
  // stream is asked for them always: they keep an idle connection checked).
  bool client_bookmarks = false;
  // A watch's timeoutSeconds; nullopt: the server's own bound.
  std::optional<absl::Duration> timeout;
};

// The query's parameters, decoded. INVALID_ARGUMENT names a malformed one.
// REQUIRES: `path` names a resource informerd serves, without subresource.
absl::StatusOr<ReadRequest> MapReadRequest(const ApiPath& path,
                                           const std::map<std::string, std::string>& query);

// A query parameter's boolean as Go's strconv.ParseBool reads it, which the
// apiserver's query decoding uses ("1", "t", "true", "True", ...; the
// Python client sends watch=True). INVALID_ARGUMENT otherwise.
absl::StatusOr<bool> ParseQueryBool(const std::string& value);

}  // namespace informerd::kubeapi

#endif  // INFORMERD_SERVER_KUBEAPI_READ_REQUEST_H_
