// SecretRefController: the C++ client's example controller, written as a
// client-go controller is, over informerd. It checks that the Secret each
// ConfigMap names in its "secret" label exists, and shows the informer
// model end to end:
//
//  - two informers from one SharedInformerFactory (configmaps, secrets);
//  - a transform ("labels-only": the controller reads only labels, so the
//    ConfigMaps' json is dropped before it is stored) and a custom index
//    (ConfigMaps by the Secret they name), which the Secret handler uses to
//    requeue the ConfigMaps that name a Secret that changed;
//  - a reconcile handler with a resync period, feeding a KeyQueue that one
//    worker drains;
//  - a slow handler (an audit log that takes options.audit_delay per
//    event) that delays neither the reconcile handler nor the informers;
//  - a late handler (an inventory), added once the caches have synced,
//    which is given every cached ConfigMap as an add.
//
// It reports what it does as lines, through options.emit, one at a time:
//
//   SYNCED                          the factory's informers have synced
//   RECONCILED key rv secret=S present|missing    or  RECONCILED key rv none
//   RECONCILED key deleted
//   RESYNC key rv                   a resync's synthetic update
//   AUDIT ADD|UPDATE|DELETE key rv  the slow handler, after its delay
//   LATE ADD|UPDATE|DELETE key rv   the late handler
//   LATE SYNCED                     the late handler's registration synced
//
// Thread safety: Run and Stop are for the owner.

#ifndef INFORMERD_CLIENT_CPP_EXAMPLE_CONTROLLER_SECRET_REF_CONTROLLER_H_
#define INFORMERD_CLIENT_CPP_EXAMPLE_CONTROLLER_SECRET_REF_CONTROLLER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/cpp/event_handler.h"
#include "client/cpp/example/controller/key_queue.h"
#include "client/cpp/shared_informer_factory.h"

namespace informerd {
namespace example {

struct SecretRefControllerOptions {
  // Empty: all namespaces.
  std::string watch_namespace;
  // The reconcile handler's resync period (zero: none).
  absl::Duration resync_period = absl::Seconds(30);
  // What the audit handler takes per event.
  absl::Duration audit_delay = absl::Seconds(1);
  // Receives each line (without newline), one call at a time.
  std::function<void(const std::string& line)> emit;
};

class SecretRefController {
 public:
  // REQUIRES: factory outlives this controller, and is shut down before
  // Stop() (so that no handler of this controller runs any more).
  SecretRefController(client::SharedInformerFactory* factory,
                      SecretRefControllerOptions options);
  SecretRefController(const SecretRefController&) = delete;
  SecretRefController& operator=(const SecretRefController&) = delete;
  ~SecretRefController();

  // Asks the factory for the two informers, registers the handlers, starts
  // the factory and waits up to sync_timeout for it to sync; then adds the
  // late handler and starts the worker. DEADLINE_EXCEEDED naming the
  // informers that did not sync.
  // REQUIRES: called once.
  absl::Status Run(absl::Duration sync_timeout);

  // Waits for the late handler's registration to sync (up to timeout) and
  // emits LATE SYNCED; false on timeout.
  bool AnnounceLateSynced(absl::Duration timeout);

  // Stops the worker. Idempotent.
  void Stop();

  // The index of ConfigMaps by the Secret they name ("ns/name").
  static constexpr char kBySecretIndex[] = "by-secret";

 private:
  class ReconcileHandler;
  class SecretHandler;
  class AuditHandler;
  class InventoryHandler;

  void Emit(const std::string& line);
  void Reconcile(const std::string& key);
  void Work();

  client::SharedInformerFactory* const factory_;
  const SecretRefControllerOptions options_;
  client::RemoteInformer* configmaps_ = nullptr;
  client::RemoteInformer* secrets_ = nullptr;
  client::HandlerRegistration* inventory_registration_ = nullptr;
  KeyQueue queue_;
  std::unique_ptr<ReconcileHandler> reconcile_handler_;
  std::unique_ptr<SecretHandler> secret_handler_;
  std::unique_ptr<AuditHandler> audit_handler_;
  std::unique_ptr<InventoryHandler> inventory_handler_;
  std::thread worker_;

  absl::Mutex emit_mu_;
};

}  // namespace example
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_EXAMPLE_CONTROLLER_SECRET_REF_CONTROLLER_H_
