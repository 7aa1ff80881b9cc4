#include "server/cache/field_mask.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace informerd::cache {
namespace {

absl::Status Malformed(size_t index, std::string_view path, std::string_view why) {
  // The path is quoted only when it is short enough to read back.
  std::string shown = path.size() <= FieldMask::kMaxPathBytes
                          ? absl::StrCat(" \"", absl::string_view(path.data(), path.size()), "\"")
                          : "";
  return absl::InvalidArgumentError(
      absl::StrCat("fields[", index, "]", shown, ": ", absl::string_view(why.data(), why.size())));
}

absl::Status CheckPath(size_t index, const std::string& path) {
  if (path.empty()) return Malformed(index, path, "empty path");
  if (path.size() > FieldMask::kMaxPathBytes) {
    return Malformed(index, path,
                     absl::StrCat("longer than ", FieldMask::kMaxPathBytes, " bytes"));
  }
  size_t segments = 1;
  bool segment_empty = true;
  for (char c : path) {
    if (c == '.') {
      if (segment_empty) return Malformed(index, path, "empty segment");
      ++segments;
      segment_empty = true;
      continue;
    }
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      return Malformed(index, path, "a segment may not hold '\"', '\\' or control characters");
    }
    segment_empty = false;
  }
  if (segment_empty) return Malformed(index, path, "empty segment");
  if (segments > FieldMask::kMaxSegments) {
    return Malformed(index, path, absl::StrCat("more than ", FieldMask::kMaxSegments, " segments"));
  }
  return absl::OkStatus();
}

// Adds `segments` under `nodes`. REQUIRES: no path added before covers
// this one or lies below it (the paths are canonical).
void AddPath(const std::vector<absl::string_view>& segments, size_t at,
             std::vector<FieldMask::Node>* nodes) {
  auto it = std::find_if(nodes->begin(), nodes->end(),
                         [&](const FieldMask::Node& node) { return node.name == segments[at]; });
  if (it == nodes->end()) {
    nodes->push_back({std::string(segments[at]), {}});
    it = nodes->end() - 1;
  }
  if (at + 1 < segments.size()) AddPath(segments, at + 1, &it->children);
}

void SortTree(std::vector<FieldMask::Node>* nodes) {
  std::sort(nodes->begin(), nodes->end(),
            [](const FieldMask::Node& a, const FieldMask::Node& b) { return a.name < b.name; });
  for (FieldMask::Node& node : *nodes) SortTree(&node.children);
}

}  // namespace

bool PathCovers(std::string_view prefix, std::string_view path) {
  if (path.size() < prefix.size() || path.substr(0, prefix.size()) != prefix) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.';
}

const std::vector<std::string>& FieldMask::IdentityPaths() {
  static const auto* const paths = new std::vector<std::string>{
      "apiVersion",    "kind",         "metadata.name",
      "metadata.namespace", "metadata.uid", "metadata.resourceVersion"};
  return *paths;
}

absl::StatusOr<FieldMask> FieldMask::Parse(const std::vector<std::string>& paths,
                                           bool with_metadata) {
  FieldMask mask;
  if (paths.empty()) return mask;
  if (paths.size() > kMaxPaths) {
    return absl::InvalidArgumentError(
        absl::StrCat("fields: ", paths.size(), " paths; at most ", kMaxPaths));
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    if (absl::Status status = CheckPath(i, paths[i]); !status.ok()) return status;
  }
  std::vector<std::string> all = paths;
  all.insert(all.end(), IdentityPaths().begin(), IdentityPaths().end());
  if (with_metadata) all.push_back("metadata");
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  // Sorted, a path's covering prefixes need not be adjacent to it ("a",
  // "a-b", "a.b"): checked against every other path, at most ~70 of them.
  for (const std::string& path : all) {
    bool covered = false;
    for (const std::string& other : all) {
      if (&other != &path && PathCovers(other, path)) {
        covered = true;
        break;
      }
    }
    if (!covered) mask.paths_.push_back(path);
  }
  mask.key_ = absl::StrJoin(mask.paths_, ",");
  for (const std::string& path : mask.paths_) {
    AddPath(absl::StrSplit(path, '.'), 0, &mask.root_);
  }
  SortTree(&mask.root_);
  return mask;
}

}  // namespace informerd::cache
