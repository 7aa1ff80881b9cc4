// FieldMaskRegistry: interns the field masks requests ask for, so that every
// caller asking the same mask (same FieldMask::key) shares one id, and with
// it each object's masked form (Object::Masked).
//
// Bounded: at most max_masks distinct masks are interned. A mask nobody
// holds (no open call uses it) may be dropped to make room for a new one,
// the least recently interned first; a new mask when every interned mask is
// held by an open call is RESOURCE_EXHAUSTED naming the bound. A dropped
// mask asked again is interned under a new id (its old forms are no longer
// found and leave as their objects' form slots are reused). Ids are never
// reused, so a form is never served for another mask.
//
// Thread safety: thread-safe.
#ifndef INFORMERD_SERVER_CACHE_FIELD_MASK_REGISTRY_H_
#define INFORMERD_SERVER_CACHE_FIELD_MASK_REGISTRY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/cache/field_mask.h"

namespace informerd::cache {

class FieldMaskRegistry {
 public:
  // The distinct masks a server keeps by default.
  static constexpr size_t kDefaultMaxMasks = 256;

  explicit FieldMaskRegistry(size_t max_masks = kDefaultMaxMasks) : max_masks_(max_masks) {}

  // The process's registry, which the Cache service and /metrics use.
  static FieldMaskRegistry& Default();

  // The interned mask equal to `mask` (a fresh id when new): hold it for as
  // long as the call serving it runs. REQUIRES: !mask.empty().
  absl::StatusOr<std::shared_ptr<const FieldMask>> Intern(FieldMask mask) ABSL_LOCKS_EXCLUDED(mu_);

  // Distinct masks interned now.
  size_t size() const ABSL_LOCKS_EXCLUDED(mu_);
  size_t max_masks() const { return max_masks_; }

 private:
  struct Entry {
    std::shared_ptr<const FieldMask> mask;
    uint64_t last_interned;
  };

  const size_t max_masks_;
  mutable absl::Mutex mu_;
  std::unordered_map<std::string, Entry> masks_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t clock_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_FIELD_MASK_REGISTRY_H_
