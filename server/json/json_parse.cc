#include "server/json/json_parse.h"

#include "absl/strings/str_cat.h"
#include "rapidjson/error/en.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/reader.h"

namespace informerd::json {
namespace {

// Forwards RapidJSON's SAX events to the document being built, refusing an
// array or object past kMaxJsonDepth. The parser calls StartObject or
// StartArray before it recurses into the value, so refusing there stops it
// before its stack goes deeper.
class DepthLimitedBuilder {
 public:
  explicit DepthLimitedBuilder(rapidjson::Document& document) : document_(document) {}

  bool too_deep() const { return too_deep_; }

  bool Null() { return document_.Null(); }
  bool Bool(bool b) { return document_.Bool(b); }
  bool Int(int i) { return document_.Int(i); }
  bool Uint(unsigned u) { return document_.Uint(u); }
  bool Int64(int64_t i) { return document_.Int64(i); }
  bool Uint64(uint64_t u) { return document_.Uint64(u); }
  bool Double(double d) { return document_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return document_.RawNumber(s, n, copy);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return document_.String(s, n, copy);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return document_.Key(s, n, copy); }
  bool StartObject() { return Enter() && document_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return document_.EndObject(members);
  }
  bool StartArray() { return Enter() && document_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return document_.EndArray(elements);
  }

 private:
  bool Enter() {
    if (++depth_ <= kMaxJsonDepth) return true;
    too_deep_ = true;
    return false;
  }

  rapidjson::Document& document_;
  int depth_ = 0;
  bool too_deep_ = false;
};

// Runs the parse as Document::Populate's generator: the document keeps its
// own value stack, so a failed parse leaves it null, as Document::Parse does.
template <unsigned kFlags, typename Stream>
absl::Status ParseStream(Stream& stream, rapidjson::Document* document) {
  rapidjson::ParseResult result;
  bool too_deep = false;
  auto generate = [&](rapidjson::Document& target) {
    DepthLimitedBuilder builder(target);
    rapidjson::Reader reader;
    result = reader.Parse<kFlags>(stream, builder);
    too_deep = builder.too_deep();
    return !result.IsError();
  };
  document->Populate(generate);
  if (!result.IsError()) return absl::OkStatus();
  document->SetNull();
  if (too_deep) {
    return absl::InvalidArgumentError(absl::StrCat("nested deeper than ", kMaxJsonDepth,
                                                   " levels at offset ", result.Offset()));
  }
  return absl::InvalidArgumentError(absl::StrCat("not valid JSON at offset ", result.Offset(),
                                                 ": ", rapidjson::GetParseError_En(result.Code())));
}

}  // namespace

absl::Status ParseInsitu(char* text, rapidjson::Document* document) {
  rapidjson::InsituStringStream stream(text);
  return ParseStream<rapidjson::kParseInsituFlag>(stream, document);
}

absl::Status Parse(std::string_view text, rapidjson::Document* document) {
  // MemoryStream, not StringStream: `text` need not be NUL-terminated. The
  // reader copies strings into the document's allocator.
  rapidjson::MemoryStream bytes(text.data(), text.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(bytes);
  return ParseStream<rapidjson::kParseDefaultFlags>(stream, document);
}

}  // namespace informerd::json
