// PruneByMask: FieldMaskProjection's rule applied to a parsed document, for
// tests: the builder's output must equal the pruned document, and in the
// integration oracle the apiserver's object pruned must equal what
// informerd serves.
//
// Thread safety: pure function.
#ifndef INFORMERD_SERVER_CACHE_FIELD_MASK_ORACLE_H_
#define INFORMERD_SERVER_CACHE_FIELD_MASK_ORACLE_H_

#include <string>
#include <vector>

#include "rapidjson/document.h"
#include "server/cache/field_mask.h"

namespace informerd::cache {

// Removes from `value` every object member that `nodes` (a mask tree, see
// FieldMask::root) does not keep, as field_mask_projection.h says; `depth`
// is the number of arrays and objects around `value`.
void PruneByMask(const std::vector<FieldMask::Node>& nodes, rapidjson::Value* value,
                 int depth = 0);

// `json` parsed, pruned by `mask` and written compact by JsonWriter.
std::string PrunedJson(const std::string& json, const FieldMask& mask);

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_FIELD_MASK_ORACLE_H_
