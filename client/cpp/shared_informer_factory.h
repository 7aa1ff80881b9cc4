// SharedInformerFactory: one RemoteInformer per key, shared by every caller
// in the process, as client-go's SharedInformerFactory. The key is the
// resource, namespace, selectors and transform name (InformerKey), so the
// callers asking for the same thing share one Watch stream and one cache.
//
//   SharedInformerFactory factory(channel, connection, absl::Minutes(10));
//   RemoteInformer* pods = factory.InformerFor(pod_options);
//   pods->AddEventHandler(&handler);
//   factory.Start();
//   for (auto& [key, synced] : factory.WaitForCacheSync(absl::Minutes(1)))...
//   ...
//   factory.Shutdown();
//
// Informers are created on first request and started by the next Start();
// handlers can be added before or after. Shutdown stops every informer and
// returns once no handler of any of them runs.
//
// Ownership: owns the informers; a RemoteInformer* it returns is valid until
// the factory is destroyed. Thread safety: thread-safe.

#ifndef INFORMERD_CLIENT_CPP_SHARED_INFORMER_FACTORY_H_
#define INFORMERD_CLIENT_CPP_SHARED_INFORMER_FACTORY_H_

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include <grpcpp/channel.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/cpp/connection.h"
#include "client/cpp/remote_informer.h"

namespace informerd {
namespace client {

// What makes two informers the same.
struct InformerKey {
  std::string group, version, resource;
  std::string watch_namespace;
  std::string label_selector, field_selector;
  std::string transform_name;

  static InformerKey Of(const RemoteInformerOptions& options);

  // E.g. "configmaps.v1. namespace=ns labels=app=x fields= transform=slim".
  std::string ToString() const;

  bool operator<(const InformerKey& other) const;
  bool operator==(const InformerKey& other) const;
};

class SharedInformerFactory {
 public:
  // default_resync_period: of the handlers of informers created without a
  // period of their own (zero: no resync).
  SharedInformerFactory(std::shared_ptr<grpc::Channel> channel,
                        ConnectionOptions connection,
                        absl::Duration default_resync_period =
                            absl::ZeroDuration());
  SharedInformerFactory(const SharedInformerFactory&) = delete;
  SharedInformerFactory& operator=(const SharedInformerFactory&) = delete;
  // Shutdown().
  ~SharedInformerFactory();

  // The informer of InformerKey::Of(options), created from options (its
  // default_resync_period replaced by the factory's, or by resync_period)
  // if this is the key's first request. Later requests for the key get the
  // same informer, whatever their other options.
  // REQUIRES: options are valid for a RemoteInformer; resync_period >= 0.
  RemoteInformer* InformerFor(RemoteInformerOptions options);
  RemoteInformer* InformerFor(RemoteInformerOptions options,
                              absl::Duration resync_period);

  // Starts the informers not started yet. Nothing after Shutdown().
  void Start();

  // Waits, up to timeout in all, until every started informer has synced;
  // returns each started informer's HasSynced().
  std::map<InformerKey, bool> WaitForCacheSync(absl::Duration timeout) const;

  // Stops every informer and waits until none of their handlers runs.
  // Later Start() calls start nothing. Idempotent.
  // REQUIRES: not called from a handler.
  void Shutdown();

 private:
  struct Entry {
    std::unique_ptr<RemoteInformer> informer;
    bool started = false;
  };

  const std::shared_ptr<grpc::Channel> channel_;
  const ConnectionOptions connection_;
  const absl::Duration default_resync_period_;

  // Serialises Shutdown() calls (RemoteInformer::Stop must not race itself).
  absl::Mutex shutdown_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  std::map<InformerKey, Entry> informers_ ABSL_GUARDED_BY(mu_);
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_SHARED_INFORMER_FACTORY_H_
