// libFuzzer target: for any JSON RapidJSON accepts, JsonWriter writes the
// same bytes as rapidjson::Writer<StringBuffer>.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "rapidjson/document.h"
#include "server/cache/json_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rapidjson::Document document;
  document.Parse(reinterpret_cast<const char*>(data), size);
  if (document.HasParseError()) return 0;
  rapidjson::StringBuffer expected;
  rapidjson::Writer<rapidjson::StringBuffer> reference(expected);
  document.Accept(reference);
  rapidjson::StringBuffer actual;
  informerd::cache::JsonWriter writer(actual);
  document.Accept(writer);
  if (expected.GetSize() != actual.GetSize() ||
      std::memcmp(expected.GetString(), actual.GetString(), expected.GetSize()) != 0) {
    abort();
  }
  return 0;
}
