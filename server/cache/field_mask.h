// FieldMask: the canonical form of a request's field mask (the `fields` of
// ListRequest, GetRequest and WatchRequest), and what the masked-JSON
// builder walks.
//
// Canonical means: the identity members (apiVersion, kind, metadata's name,
// namespace, uid and resourceVersion) added, paths sorted, duplicates
// dropped and every path below another path dropped ("spec" covers
// "spec.nodeName"). Two requests whose masks select the same members get
// equal masks (same key()), which is what lets the registry share one
// masked form of an object among them.
//
// The empty mask (a request without fields) selects everything: callers
// test empty() and serve the object as is.
//
// Thread safety: immutable once built; share freely.
#ifndef INFORMERD_SERVER_CACHE_FIELD_MASK_H_
#define INFORMERD_SERVER_CACHE_FIELD_MASK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace informerd::cache {

class FieldMask {
 public:
  // Bounds on a request's mask: its parse, canonical form and the tree the
  // builder walks stay small whatever a client sends.
  static constexpr size_t kMaxPaths = 64;
  static constexpr size_t kMaxPathBytes = 512;
  static constexpr size_t kMaxSegments = 32;

  // One member of the mask tree: a JSON member name and what of its value
  // is kept. No children: the whole value.
  struct Node {
    std::string name;
    std::vector<Node> children;  // sorted by name
  };

  // The paths every non-empty mask holds, whatever the request says.
  static const std::vector<std::string>& IdentityPaths();

  // The mask of a request's `paths`, plus "metadata" when `with_metadata`
  // (PROJECTION_METADATA combined with a mask). No paths: the empty mask,
  // whatever `with_metadata`. A malformed path is INVALID_ARGUMENT naming
  // it as fields[i]: empty, an empty segment, a '"', '\\' or control
  // character, or longer than the bounds above; more than kMaxPaths paths
  // likewise.
  static absl::StatusOr<FieldMask> Parse(const std::vector<std::string>& paths,
                                         bool with_metadata = false);

  FieldMask() = default;

  bool empty() const { return paths_.empty(); }
  // Canonical paths, sorted.
  const std::vector<std::string>& paths() const { return paths_; }
  // The canonical paths joined by ','; equal masks have equal keys.
  const std::string& key() const { return key_; }
  // The top-level members kept, as a tree.
  const std::vector<Node>& root() const { return root_; }

  // Set by FieldMaskRegistry when it interns the mask: objects cache their
  // masked forms by it. 0: not interned (forms are built but not kept).
  uint64_t id() const { return id_; }

 private:
  friend class FieldMaskRegistry;

  std::vector<std::string> paths_;
  std::string key_;
  std::vector<Node> root_;
  uint64_t id_ = 0;
};

// Whether `path` is `prefix` or lies below it ("a.b" is below "a", "ab"
// is not).
bool PathCovers(std::string_view prefix, std::string_view path);

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_FIELD_MASK_H_
