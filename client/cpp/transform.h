// ObjectTransform: a change a RemoteInformer makes to every object it
// receives before storing it, as client-go's TransformFunc (e.g. dropping
// fields a program never reads, to save memory). Handlers and the cache only
// ever see transformed objects; deletes are transformed too.
//
// The name is the transform's identity: a SharedInformerFactory shares one
// informer between callers asking for the same resource, namespace,
// selectors and transform name, so one name must always mean one function.

#ifndef INFORMERD_CLIENT_CPP_TRANSFORM_H_
#define INFORMERD_CLIENT_CPP_TRANSFORM_H_

#include <functional>
#include <string>

#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace client {

struct ObjectTransform {
  // Empty (with apply unset): no transform.
  std::string name;
  // Edits the object in place. Called on the informer's thread.
  // REQUIRES: deterministic; keeps namespace, name and resource_version
  // (the informer routes and compares by them).
  std::function<void(informerd::v1::Object*)> apply;
};

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_TRANSFORM_H_
