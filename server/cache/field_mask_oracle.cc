#include "server/cache/field_mask_oracle.h"

#include <string_view>

#include "rapidjson/stringbuffer.h"
#include "server/cache/field_mask_projection.h"
#include "server/cache/json_writer.h"

namespace informerd::cache {

void PruneByMask(const std::vector<FieldMask::Node>& nodes, rapidjson::Value* value, int depth) {
  if (depth >= kMaxMaskDepth) return;
  if (value->IsArray()) {
    for (auto& element : value->GetArray()) PruneByMask(nodes, &element, depth + 1);
    return;
  }
  if (!value->IsObject()) return;
  for (auto it = value->MemberBegin(); it != value->MemberEnd();) {
    const std::string_view name(it->name.GetString(), it->name.GetStringLength());
    const FieldMask::Node* kept = nullptr;
    for (const FieldMask::Node& node : nodes) {
      if (node.name == name) kept = &node;
    }
    if (kept == nullptr) {
      it = value->EraseMember(it);  // keeps the order of the others
      continue;
    }
    if (!kept->children.empty()) PruneByMask(kept->children, &it->value, depth + 1);
    ++it;
  }
}

std::string PrunedJson(const std::string& json, const FieldMask& mask) {
  rapidjson::Document document;
  // Full precision: the projection copies a number's text as it is, and a
  // re-read that rounds (RapidJSON's default) can write it back otherwise.
  document.Parse<rapidjson::kParseFullPrecisionFlag>(json.data(), json.size());
  if (document.HasParseError()) return "";
  PruneByMask(mask.root(), &document);
  rapidjson::StringBuffer out;
  JsonWriter writer(out);
  document.Accept(writer);
  return std::string(out.GetString(), out.GetSize());
}

}  // namespace informerd::cache
