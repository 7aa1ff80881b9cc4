// Small pieces of JSON text for informerctl's output. Objects are embedded
// verbatim as the server sent them; only the envelopes are built here.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_JSON_TEXT_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_JSON_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace informerctl {

// text as a quoted, escaped JSON string.
std::string JsonString(absl::string_view text);

// object.json, or, when the server sent none, an object holding the
// metadata copied into the other fields, so the output stays valid JSON.
std::string ObjectJson(const informerd::v1::Object& object);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_JSON_TEXT_H_
