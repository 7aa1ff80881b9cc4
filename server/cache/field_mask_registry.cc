#include "server/cache/field_mask_registry.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace informerd::cache {

FieldMaskRegistry& FieldMaskRegistry::Default() {
  static auto* const registry = new FieldMaskRegistry();
  return *registry;
}

absl::StatusOr<std::shared_ptr<const FieldMask>> FieldMaskRegistry::Intern(FieldMask mask) {
  absl::MutexLock lock(&mu_);
  ++clock_;
  auto it = masks_.find(mask.key());
  if (it != masks_.end()) {
    it->second.last_interned = clock_;
    return it->second.mask;
  }
  if (masks_.size() >= max_masks_) {
    // The registry's own reference is the only one of a mask no call holds.
    auto victim = masks_.end();
    for (auto candidate = masks_.begin(); candidate != masks_.end(); ++candidate) {
      if (candidate->second.mask.use_count() != 1) continue;
      if (victim == masks_.end() ||
          candidate->second.last_interned < victim->second.last_interned) {
        victim = candidate;
      }
    }
    if (victim == masks_.end()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "fields: the server serves at most ", max_masks_,
          " distinct field masks at once and all are in use by open calls; use a mask "
          "other callers use, or retry later"));
    }
    masks_.erase(victim);
  }
  mask.id_ = next_id_++;
  std::string key = mask.key();
  auto interned = std::make_shared<const FieldMask>(std::move(mask));
  masks_.emplace(std::move(key), Entry{interned, clock_});
  return interned;
}

size_t FieldMaskRegistry::size() const {
  absl::MutexLock lock(&mu_);
  return masks_.size();
}

}  // namespace informerd::cache
