// EventHandler: receives the changes a RemoteInformer applies to its cache,
// as client-go's ResourceEventHandler does. Override what you need; the
// defaults do nothing.

#ifndef INFORMERD_CLIENT_CPP_EVENT_HANDLER_H_
#define INFORMERD_CLIENT_CPP_EVENT_HANDLER_H_

#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace client {

class EventHandler {
 public:
  virtual ~EventHandler() = default;

  virtual void OnAdd(const informerd::v1::Object& obj) {}
  virtual void OnUpdate(const informerd::v1::Object& old_obj,
                        const informerd::v1::Object& new_obj) {}
  // final_state_unknown: the delete was learnt from a relist, so obj is the
  // last state seen, not necessarily the state the object was deleted in.
  virtual void OnDelete(const informerd::v1::Object& obj,
                        bool final_state_unknown) {}
};

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_EVENT_HANDLER_H_
