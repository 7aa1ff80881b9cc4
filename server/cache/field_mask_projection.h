// FieldMaskProjection: an object's JSON with only the members a FieldMask
// selects, for masked List, Get and Watch replies.
//
// Like MetadataProjection it scans the object's compact JSON and copies the
// selected members' bytes, in their order, without parsing it. The rule,
// which tests check against the same pruning of a parsed document: in an
// object, a member the mask names is kept whole, a member on the way to a
// named field is kept with the rule applied to its value, any other member
// is removed; the rule applies to each element of an array alike; any
// other value (a string, number, true, false, null) is kept as it is.
// Nothing else is removed, so a path through an array keeps every element
// and a member on the way to a field the object lacks is kept as {}.
//
// Thread safety: pure function.
#ifndef INFORMERD_SERVER_CACHE_FIELD_MASK_PROJECTION_H_
#define INFORMERD_SERVER_CACHE_FIELD_MASK_PROJECTION_H_

#include <string>
#include <string_view>

#include "server/cache/field_mask.h"

namespace informerd::cache {

// REQUIRES: `json` is one JSON object as JsonWriter writes it (compact), as
// Object::json() holds; `mask` is not empty. Text that is not gives a
// shorter result, never a read outside `json`. Values nested deeper than
// kMaxMaskDepth below the mask's last named member are kept whole, so the
// recursion is bounded whatever the text.
std::string FieldMaskProjection(std::string_view json, const FieldMask& mask);

inline constexpr int kMaxMaskDepth = 64;

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_FIELD_MASK_PROJECTION_H_
