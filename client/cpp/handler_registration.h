// HandlerRegistration: what RemoteInformer::AddEventHandler returns, as
// client-go's ResourceEventHandlerRegistration: it tells whether that one
// handler has been given the informer's initial state, and names the handler
// to RemoteInformer::RemoveEventHandler.
//
// Ownership: the informer owns it; valid until RemoveEventHandler(this)
// returns or the informer is destroyed.
// Thread safety: thread-safe.

#ifndef INFORMERD_CLIENT_CPP_HANDLER_REGISTRATION_H_
#define INFORMERD_CLIENT_CPP_HANDLER_REGISTRATION_H_

#include "absl/time/time.h"

namespace informerd {
namespace client {

class HandlerRegistration {
 public:
  virtual ~HandlerRegistration() = default;

  // True once the informer has synced and this handler has been called for
  // every object of its initial state (as OnAdd, for a handler added to a
  // running informer: one per cached object). Stays true.
  virtual bool HasSynced() const = 0;

  // Waits until HasSynced() or timeout; returns HasSynced().
  virtual bool WaitForSynced(absl::Duration timeout) const = 0;
};

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_HANDLER_REGISTRATION_H_
