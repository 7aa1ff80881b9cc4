// Parsing JSON that informerd did not write (the apiserver's objects and
// frames, a root informerd's objects, review answers) with a bound on
// nesting.
//
// RapidJSON's parser, its writer and informerd's walks over a document all
// recurse once per level of nesting, so a document nested a million levels
// deep overflows the thread's stack: one such object from a compromised
// upstream would kill the process. Everything that parses such input goes
// through these functions, which refuse a document nested deeper than
// kMaxJsonDepth before any of that recursion goes past it.
//
// Guarantees: on success, *document holds the document and no array or
// object in it is nested deeper than kMaxJsonDepth (the root is level 1).
// On failure, *document is null and the status (INVALID_ARGUMENT) says why
// and at which byte offset; callers prefix what they were reading.
//
// Thread safety: pure functions over the caller's buffers.
#ifndef INFORMERD_SERVER_JSON_JSON_PARSE_H_
#define INFORMERD_SERVER_JSON_JSON_PARSE_H_

#include <string_view>

#include "absl/status/status.h"
#include "rapidjson/document.h"

namespace informerd::json {

// The deepest nesting accepted. The kube-apiserver cannot store or serve an
// object nested deeper than 10,000 levels (Go's encoding/json and
// apimachinery's unstructured conversion both stop there), and a watch frame
// wraps it in one more; 2x that is room for any real object, and costs at
// most a few MiB of stack in the threads that parse and write objects
// (docs/DECISIONS.md, "A nesting limit for parsed JSON").
inline constexpr int kMaxJsonDepth = 20000;

// Parses the NUL-terminated `text` in place: strings in the document point
// into `text`, which must outlive it.
absl::Status ParseInsitu(char* text, rapidjson::Document* document);

// Parses a copy of `text`'s strings into the document's allocator.
absl::Status Parse(std::string_view text, rapidjson::Document* document);

}  // namespace informerd::json

#endif  // INFORMERD_SERVER_JSON_JSON_PARSE_H_
