// JsonWriter: writes compact JSON exactly as rapidjson::Writer<StringBuffer>
// does, faster for Kubernetes objects. RapidJSON scans a string 16 bytes at
// a time when built with SIMD (bazel/BUILD.bazel), which wins on long
// strings (ConfigMap data, annotations) but costs more than it saves on the
// short keys and values most objects consist of; JsonWriter copies strings
// shorter than kVectorMinLength byte by byte and leaves longer ones to
// RapidJSON.
//
// Thread safety: none; one writer per output, as for rapidjson::Writer.
#ifndef INFORMERD_SERVER_CACHE_JSON_WRITER_H_
#define INFORMERD_SERVER_CACHE_JSON_WRITER_H_

#include <cstddef>

#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace informerd::cache {

class JsonWriter : public rapidjson::Writer<rapidjson::StringBuffer> {
 public:
  static constexpr rapidjson::SizeType kVectorMinLength = 32;

  explicit JsonWriter(rapidjson::StringBuffer& output) : Writer(output) {}

  // Hide Writer's: rapidjson::Value::Accept calls these on the handler's
  // own type.
  bool String(const Ch* text, rapidjson::SizeType length, bool copy = false);
  bool Key(const Ch* text, rapidjson::SizeType length, bool copy = false) {
    return String(text, length, copy);
  }

 private:
  void WriteShortString(const Ch* text, size_t length);
};

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_JSON_WRITER_H_
