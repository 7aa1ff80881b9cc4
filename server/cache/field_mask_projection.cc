#include "server/cache/field_mask_projection.h"

#include <algorithm>
#include <vector>

#include "server/json/json_scan.h"

namespace informerd::cache {
namespace {

using json::SkipString;
using json::SkipValue;
using Nodes = std::vector<FieldMask::Node>;

// The node named by the unquoted key text, or null.
const FieldMask::Node* FindNode(const Nodes& nodes, std::string_view key) {
  auto it = std::lower_bound(nodes.begin(), nodes.end(), key,
                             [](const FieldMask::Node& node, std::string_view k) {
                               return std::string_view(node.name) < k;
                             });
  if (it == nodes.end() || it->name != key) return nullptr;
  return &*it;
}

class Projector {
 public:
  Projector(std::string_view json, std::string* out)
      : data_(json.data()), end_(json.size()), out_(out) {}

  // Appends the value at data_[i] with `nodes` applied; returns its end.
  // `depth` counts the arrays and objects entered.
  size_t Value(size_t i, const Nodes& nodes, int depth) {
    if (i >= end_) return end_;
    const char c = data_[i];
    if ((c != '{' && c != '[') || depth >= kMaxMaskDepth) {
      const size_t value_end = SkipValue(data_, i, end_);
      out_->append(data_ + i, value_end - i);
      return value_end;
    }
    return c == '{' ? Object(i, nodes, depth + 1) : Array(i, nodes, depth + 1);
  }

 private:
  size_t Object(size_t i, const Nodes& nodes, int depth) {
    out_->push_back('{');
    ++i;
    bool first = true;
    while (i < end_ && data_[i] == '"') {
      const size_t key_end = SkipString(data_, i, end_);
      if (key_end >= end_ || data_[key_end] != ':') return Close(end_, '}');
      const std::string_view key(data_ + i + 1, key_end - i - 2);
      const FieldMask::Node* node = FindNode(nodes, key);
      size_t value_end;
      if (node == nullptr) {
        value_end = SkipValue(data_, key_end + 1, end_);
      } else {
        if (!first) out_->push_back(',');
        first = false;
        out_->append(data_ + i, key_end + 1 - i);
        if (node->children.empty()) {
          value_end = SkipValue(data_, key_end + 1, end_);
          out_->append(data_ + key_end + 1, value_end - key_end - 1);
        } else {
          value_end = Value(key_end + 1, node->children, depth);
        }
      }
      i = value_end;
      if (i < end_ && data_[i] == ',') ++i;
    }
    return Close(i, '}');
  }

  size_t Array(size_t i, const Nodes& nodes, int depth) {
    out_->push_back('[');
    ++i;
    bool first = true;
    while (i < end_ && data_[i] != ']') {
      if (!first) out_->push_back(',');
      first = false;
      const size_t value_end = Value(i, nodes, depth);
      if (value_end == i) return Close(end_, ']');  // not a value: stop
      i = value_end;
      if (i < end_ && data_[i] == ',') ++i;
    }
    return Close(i, ']');
  }

  // Closes the container; past its closing byte when data_[i] is it.
  size_t Close(size_t i, char closing) {
    out_->push_back(closing);
    return i < end_ && data_[i] == closing ? i + 1 : end_;
  }

  const char* const data_;
  const size_t end_;
  std::string* const out_;
};

}  // namespace

std::string FieldMaskProjection(std::string_view json, const FieldMask& mask) {
  std::string out;
  if (json.empty() || json[0] != '{') return "{}";
  out.reserve(json.size() / 4);
  Projector(json, &out).Value(0, mask.root(), 0);
  return out;
}

}  // namespace informerd::cache
