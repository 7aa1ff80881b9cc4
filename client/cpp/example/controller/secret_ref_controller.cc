#include "client/cpp/example/controller/secret_ref_controller.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace informerd {
namespace example {

namespace {

using informerd::v1::Object;

constexpr char kSecretLabel[] = "secret";

std::string KeyOf(const Object& object) {
  return client::ObjectKey(object.namespace_(), object.name());
}

std::string Describe(const Object& object) {
  return absl::StrCat(KeyOf(object), " ", object.resource_version());
}

client::RemoteInformerOptions Resource(const std::string& resource,
                                       const std::string& watch_namespace) {
  client::RemoteInformerOptions options;
  options.resource.set_resource(resource);
  options.watch_namespace = watch_namespace;
  return options;
}

}  // namespace

// Queues every ConfigMap that changed; notes resyncs.
class SecretRefController::ReconcileHandler : public client::EventHandler {
 public:
  explicit ReconcileHandler(SecretRefController* controller)
      : controller_(controller) {}
  void OnAdd(const Object& obj) override { controller_->queue_.Add(KeyOf(obj)); }
  void OnUpdate(const Object& old_obj, const Object& new_obj) override {
    if (old_obj.resource_version() == new_obj.resource_version()) {
      controller_->Emit(absl::StrCat("RESYNC ", Describe(new_obj)));
    }
    controller_->queue_.Add(KeyOf(new_obj));
  }
  void OnDelete(const Object& obj, bool) override {
    controller_->queue_.Add(KeyOf(obj));
  }

 private:
  SecretRefController* const controller_;
};

// Queues the ConfigMaps that name a Secret that changed (by the index).
class SecretRefController::SecretHandler : public client::EventHandler {
 public:
  explicit SecretHandler(SecretRefController* controller)
      : controller_(controller) {}
  void OnAdd(const Object& obj) override { Requeue(obj); }
  void OnUpdate(const Object&, const Object& new_obj) override {
    Requeue(new_obj);
  }
  void OnDelete(const Object& obj, bool) override { Requeue(obj); }

 private:
  void Requeue(const Object& secret) {
    absl::StatusOr<std::vector<std::string>> keys =
        controller_->configmaps_->Lister().IndexKeys(kBySecretIndex,
                                                     KeyOf(secret));
    if (!keys.ok()) return;
    for (const std::string& key : *keys) controller_->queue_.Add(key);
  }
  SecretRefController* const controller_;
};

// A slow consumer: takes audit_delay per event.
class SecretRefController::AuditHandler : public client::EventHandler {
 public:
  explicit AuditHandler(SecretRefController* controller)
      : controller_(controller) {}
  void OnAdd(const Object& obj) override { Audit("ADD", obj); }
  void OnUpdate(const Object&, const Object& new_obj) override {
    Audit("UPDATE", new_obj);
  }
  void OnDelete(const Object& obj, bool) override { Audit("DELETE", obj); }

 private:
  void Audit(const char* what, const Object& obj) {
    // Stands for slow work (a remote audit log); not synchronisation.
    absl::SleepFor(controller_->options_.audit_delay);
    controller_->Emit(absl::StrCat("AUDIT ", what, " ", Describe(obj)));
  }
  SecretRefController* const controller_;
};

// Added late: must be given every cached ConfigMap first.
class SecretRefController::InventoryHandler : public client::EventHandler {
 public:
  explicit InventoryHandler(SecretRefController* controller)
      : controller_(controller) {}
  void OnAdd(const Object& obj) override {
    controller_->Emit(absl::StrCat("LATE ADD ", Describe(obj)));
  }
  void OnUpdate(const Object& old_obj, const Object& new_obj) override {
    controller_->Emit(absl::StrCat("LATE UPDATE ", KeyOf(new_obj), " ",
                                   old_obj.resource_version(), " ",
                                   new_obj.resource_version()));
  }
  void OnDelete(const Object& obj, bool) override {
    controller_->Emit(absl::StrCat("LATE DELETE ", Describe(obj)));
  }

 private:
  SecretRefController* const controller_;
};

SecretRefController::SecretRefController(client::SharedInformerFactory* factory,
                                         SecretRefControllerOptions options)
    : factory_(factory),
      options_(std::move(options)),
      reconcile_handler_(std::make_unique<ReconcileHandler>(this)),
      secret_handler_(std::make_unique<SecretHandler>(this)),
      audit_handler_(std::make_unique<AuditHandler>(this)),
      inventory_handler_(std::make_unique<InventoryHandler>(this)) {}

SecretRefController::~SecretRefController() { Stop(); }

absl::Status SecretRefController::Run(absl::Duration sync_timeout) {
  client::RemoteInformerOptions configmaps =
      Resource("configmaps", options_.watch_namespace);
  configmaps.transform = {"labels-only",
                          [](Object* object) { object->clear_json(); }};
  configmaps_ = factory_->InformerFor(std::move(configmaps));
  secrets_ = factory_->InformerFor(Resource("secrets", options_.watch_namespace));
  absl::Status indexed = configmaps_->AddIndex(
      kBySecretIndex, [](const Object& object) {
        auto secret = object.labels().find(kSecretLabel);
        if (secret == object.labels().end()) return std::vector<std::string>{};
        return std::vector<std::string>{
            client::ObjectKey(object.namespace_(), secret->second)};
      });
  if (!indexed.ok()) return indexed;
  configmaps_->AddEventHandler(reconcile_handler_.get(), options_.resync_period);
  configmaps_->AddEventHandler(audit_handler_.get(), absl::ZeroDuration());
  secrets_->AddEventHandler(secret_handler_.get(), absl::ZeroDuration());

  factory_->Start();
  std::vector<std::string> unsynced;
  for (const auto& [key, synced] : factory_->WaitForCacheSync(sync_timeout)) {
    if (!synced) unsynced.push_back(key.ToString());
  }
  if (!unsynced.empty()) {
    return absl::DeadlineExceededError(absl::StrCat(
        "informers not synced: ", absl::StrJoin(unsynced, "; ")));
  }
  Emit("SYNCED");
  inventory_registration_ = configmaps_->AddEventHandler(
      inventory_handler_.get(), absl::ZeroDuration());
  worker_ = std::thread([this] { Work(); });
  return absl::OkStatus();
}

bool SecretRefController::AnnounceLateSynced(absl::Duration timeout) {
  if (inventory_registration_ == nullptr ||
      !inventory_registration_->WaitForSynced(timeout)) {
    return false;
  }
  Emit("LATE SYNCED");
  return true;
}

void SecretRefController::Stop() {
  queue_.ShutDown();
  if (worker_.joinable()) worker_.join();
}

void SecretRefController::Emit(const std::string& line) {
  absl::MutexLock lock(&emit_mu_);
  options_.emit(line);
}

void SecretRefController::Work() {
  while (std::optional<std::string> key = queue_.Get()) {
    Reconcile(*key);
    queue_.Done(*key);
  }
}

void SecretRefController::Reconcile(const std::string& key) {
  std::vector<std::string> parts = absl::StrSplit(key, absl::MaxSplits('/', 1));
  if (parts.size() != 2) return;  // ConfigMaps are namespaced
  client::CachedObjectPtr configmap = configmaps_->Lister().Get(parts[0], parts[1]);
  if (configmap == nullptr) {
    Emit(absl::StrCat("RECONCILED ", key, " deleted"));
    return;
  }
  const Object& object = configmap->object;
  auto secret = object.labels().find(kSecretLabel);
  if (secret == object.labels().end()) {
    Emit(absl::StrCat("RECONCILED ", Describe(object), " none"));
    return;
  }
  bool present = secrets_->Lister().Get(parts[0], secret->second) != nullptr;
  Emit(absl::StrCat("RECONCILED ", Describe(object), " secret=", secret->second,
                    " ", present ? "present" : "missing"));
}

}  // namespace example
}  // namespace informerd
