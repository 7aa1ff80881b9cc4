#include "server/kube_proto/kube_protobuf.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.pb.h"
#include "kube_proto/kube_proto_schemas.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "server/json/json_parse.h"

namespace informerd::kube_proto {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

constexpr std::string_view kTime = "k8s.io.apimachinery.pkg.apis.meta.v1.Time";
constexpr std::string_view kMicroTime = "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime";
constexpr std::string_view kDuration = "k8s.io.apimachinery.pkg.apis.meta.v1.Duration";
constexpr std::string_view kFieldsV1 = "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1";
constexpr std::string_view kQuantity = "k8s.io.apimachinery.pkg.api.resource.Quantity";
constexpr std::string_view kIntOrString = "k8s.io.apimachinery.pkg.util.intstr.IntOrString";
constexpr std::string_view kRawExtension = "k8s.io.apimachinery.pkg.runtime.RawExtension";

void PutVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void PutTag(int number, int wire_type, std::string* out) {
  PutVarint((static_cast<uint64_t>(number) << 3) | wire_type, out);
}

void PutBytes(int number, std::string_view bytes, std::string* out) {
  PutTag(number, 2, out);
  PutVarint(bytes.size(), out);
  out->append(bytes);
}

void PutVarintField(int number, uint64_t value, std::string* out) {
  PutTag(number, 0, out);
  PutVarint(value, out);
}

// Debian's Abseil has its own string_view.
absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string_view Str(const rapidjson::Value& value) {
  return std::string_view(value.GetString(), value.GetStringLength());
}

// A JSON string as Go's encoding/json writes it (HTML-safe escapes, \u2028
// and \u2029 escaped): the bytes a Go client finds in a RawExtension decoded
// from the apiserver's JSON.
void AppendGoString(std::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"': out->append("\\\""); continue;
      case '\\': out->append("\\\\"); continue;
      case '\n': out->append("\\n"); continue;
      case '\r': out->append("\\r"); continue;
      case '\t': out->append("\\t"); continue;
      case '\b': out->append("\\b"); continue;
      case '\f': out->append("\\f"); continue;
      default: break;
    }
    if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xf]);
    } else if (c == 0xe2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(text[i + 2]) & 0xfe) == 0xa8) {
      out->append(static_cast<unsigned char>(text[i + 2]) == 0xa8 ? "\\u2028" : "\\u2029");
      i += 2;
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
}

// Go's time.ParseDuration grammar: [-]{number unit}+, or "0".
bool ParseGoDuration(std::string_view text, int64_t* nanos) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text == "0") {
    *nanos = 0;
    return true;
  }
  if (text.empty()) return false;
  long double total = 0;
  while (!text.empty()) {
    size_t i = 0;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    if (i == 0) return false;
    double number;
    if (!absl::SimpleAtod(A(text.substr(0, i)), &number)) return false;
    text.remove_prefix(i);
    size_t j = 0;
    while (j < text.size() && !((text[j] >= '0' && text[j] <= '9') || text[j] == '.')) ++j;
    std::string_view unit = text.substr(0, j);
    text.remove_prefix(j);
    long double scale;
    if (unit == "ns") scale = 1;
    else if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs") scale = 1e3;
    else if (unit == "ms") scale = 1e6;
    else if (unit == "s") scale = 1e9;
    else if (unit == "m") scale = 60e9;
    else if (unit == "h") scale = 3600e9;
    else return false;
    total += number * scale;
  }
  if (total > 9.2e18) return false;
  *nanos = static_cast<int64_t>(std::llround(negative ? -total : total));
  return true;
}

}  // namespace

// One Encode call: the recursion over the schema, with its depth.
class KubeProtobuf::Writer {
 public:
  explicit Writer(const KubeProtobuf& encoder) : encoder_(encoder) {}

  // The message `message` from the members of `object` (at the top level,
  // apiVersion and kind go to the envelope instead).
  absl::Status Message(const Descriptor* message, const rapidjson::Value& object, bool top,
                       std::string* out) {
    if (!object.IsObject()) return Error(message->name(), "want a JSON object");
    std::vector<const rapidjson::Value::Member*> members;
    members.reserve(object.MemberCount());
    for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
      if (top && (Str(it->name) == "apiVersion" || Str(it->name) == "kind")) continue;
      members.push_back(&*it);
    }
    return Members(message, members, out);
  }

 private:
  absl::Status Error(std::string_view where, std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(path_, where.empty() ? "" : ".", A(where), ": ", A(why)));
  }

  absl::Status Members(const Descriptor* message,
                       const std::vector<const rapidjson::Value::Member*>& members,
                       std::string* out) {
    if (++depth_ > kMaxDepth) return Error("", "nested too deeply");
    const MessageInfo& info = encoder_.Info(message);
    // (field number, order of appearance, encoded field): sorted by number so
    // the output is in field order, as Go's generated code writes it.
    std::vector<std::pair<int, std::string>> fields;
    std::vector<std::vector<const rapidjson::Value::Member*>> inlined(info.inlined.size());
    for (const auto* member : members) {
      std::string_view name = Str(member->name);
      auto it = info.by_json_name.find(std::string(name));
      if (it == info.by_json_name.end()) {
        size_t i = 0;
        while (i < info.inlined.size() && !Accepts(info.inlined[i]->message_type(), name)) ++i;
        if (i == info.inlined.size()) {
          return Error(name, absl::StrCat("not a field of ", message->full_name(), " in the k8s.io/api ",
                                          A(kube_proto_schemas::Version()), " schema"));
        }
        inlined[i].push_back(member);
        continue;
      }
      if (member->value.IsNull()) continue;
      std::string encoded;
      const size_t mark = path_.size();
      absl::StrAppend(&path_, path_.empty() ? "" : ".", A(name));
      absl::Status status = Field(it->second, member->value, &encoded);
      path_.resize(mark);
      if (!status.ok()) return status;
      fields.emplace_back(it->second->number(), std::move(encoded));
    }
    for (size_t i = 0; i < inlined.size(); ++i) {
      if (inlined[i].empty()) continue;
      std::string encoded;
      absl::Status status = Members(info.inlined[i]->message_type(), inlined[i], &encoded);
      if (!status.ok()) return status;
      std::string framed;
      PutBytes(info.inlined[i]->number(), encoded, &framed);
      fields.emplace_back(info.inlined[i]->number(), std::move(framed));
    }
    for (const FieldDescriptor* field : info.always) {
      bool present = false;
      for (const auto& written : fields) present = present || written.first == field->number();
      if (present) continue;
      std::string encoded;
      if (absl::Status status = Zero(field, &encoded); !status.ok()) return status;
      fields.emplace_back(field->number(), std::move(encoded));
    }
    std::stable_sort(fields.begin(), fields.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& field : fields) out->append(field.second);
    --depth_;
    return absl::OkStatus();
  }

  // `field` at its zero value, as Go's generated code writes a non-pointer
  // field: the well-known types by their own marshallers.
  absl::Status Zero(const FieldDescriptor* field, std::string* out) {
    const int number = field->number();
    switch (field->type()) {
      case FieldDescriptor::TYPE_STRING:
      case FieldDescriptor::TYPE_BYTES:
        PutBytes(number, "", out);
        return absl::OkStatus();
      case FieldDescriptor::TYPE_BOOL:
      case FieldDescriptor::TYPE_INT32:
      case FieldDescriptor::TYPE_INT64:
      case FieldDescriptor::TYPE_UINT32:
      case FieldDescriptor::TYPE_UINT64:
        PutVarintField(number, 0, out);
        return absl::OkStatus();
      case FieldDescriptor::TYPE_MESSAGE: {
        const Descriptor* message = field->message_type();
        const std::string& name = message->full_name();
        std::string encoded;
        if (name == kQuantity) {
          PutBytes(1, "0", &encoded);
        } else if (name == kIntOrString) {
          PutVarintField(1, 0, &encoded);
          PutVarintField(2, 0, &encoded);
          PutBytes(3, "", &encoded);
        } else if (name == kDuration) {
          PutVarintField(1, 0, &encoded);
        } else if (name != kTime && name != kMicroTime && name != kRawExtension && name != kFieldsV1) {
          if (absl::Status status = Members(message, {}, &encoded); !status.ok()) return status;
        }
        PutBytes(number, encoded, out);
        return absl::OkStatus();
      }
      default:
        return absl::OkStatus();
    }
  }

  bool Accepts(const Descriptor* message, std::string_view name) {
    const MessageInfo& info = encoder_.Info(message);
    if (info.by_json_name.count(std::string(name))) return true;
    for (const FieldDescriptor* field : info.inlined) {
      if (Accepts(field->message_type(), name)) return true;
    }
    return false;
  }

  absl::Status Field(const FieldDescriptor* field, const rapidjson::Value& value, std::string* out) {
    if (field->is_map()) {
      if (!value.IsObject()) return Error("", "want a JSON object (a map)");
      const FieldDescriptor* value_field = field->message_type()->map_value();
      std::vector<const rapidjson::Value::Member*> entries;
      for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it) entries.push_back(&*it);
      std::sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) {
        return Str(a->name) < Str(b->name);
      });
      for (const auto* entry : entries) {
        std::string encoded;
        PutBytes(1, Str(entry->name), &encoded);
        // Go writes a nil message value as an empty one, and leaves a nil
        // bytes value out.
        const bool message_value = value_field->type() == FieldDescriptor::TYPE_MESSAGE;
        if (!entry->value.IsNull() || message_value) {
          absl::Status status = entry->value.IsNull() ? Zero(value_field, &encoded)
                                                      : Single(value_field, entry->value, &encoded);
          if (!status.ok()) return status;
        }
        PutBytes(field->number(), encoded, out);
      }
      return absl::OkStatus();
    }
    if (field->is_repeated()) {
      if (!value.IsArray()) return Error("", "want a JSON array");
      for (const auto& element : value.GetArray()) {
        absl::Status status = Single(field, element, out);
        if (!status.ok()) return status;
      }
      return absl::OkStatus();
    }
    return Single(field, value, out);
  }

  // One value of `field`, tag included.
  absl::Status Single(const FieldDescriptor* field, const rapidjson::Value& value, std::string* out) {
    const int number = field->number();
    switch (field->type()) {
      case FieldDescriptor::TYPE_STRING:
        if (!value.IsString()) return Error("", "want a JSON string");
        PutBytes(number, Str(value), out);
        return absl::OkStatus();
      case FieldDescriptor::TYPE_BYTES: {
        if (!value.IsString()) return Error("", "want a base64 JSON string");
        std::string bytes;
        if (!absl::Base64Unescape(A(Str(value)), &bytes)) return Error("", "not base64");
        PutBytes(number, bytes, out);
        return absl::OkStatus();
      }
      case FieldDescriptor::TYPE_BOOL:
        if (!value.IsBool()) return Error("", "want a JSON boolean");
        PutVarintField(number, value.GetBool() ? 1 : 0, out);
        return absl::OkStatus();
      case FieldDescriptor::TYPE_INT32:
        if (!value.IsInt()) return Error("", "want a 32-bit integer");
        PutVarintField(number, static_cast<uint64_t>(static_cast<int64_t>(value.GetInt())), out);
        return absl::OkStatus();
      case FieldDescriptor::TYPE_INT64:
        if (!value.IsInt64()) return Error("", "want a 64-bit integer");
        PutVarintField(number, static_cast<uint64_t>(value.GetInt64()), out);
        return absl::OkStatus();
      case FieldDescriptor::TYPE_UINT32:
        if (!value.IsUint()) return Error("", "want an unsigned 32-bit integer");
        PutVarintField(number, value.GetUint(), out);
        return absl::OkStatus();
      case FieldDescriptor::TYPE_UINT64:
        if (!value.IsUint64()) return Error("", "want an unsigned 64-bit integer");
        PutVarintField(number, value.GetUint64(), out);
        return absl::OkStatus();
      case FieldDescriptor::TYPE_DOUBLE: {
        if (!value.IsNumber()) return Error("", "want a JSON number");
        double d = value.GetDouble();
        uint64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        PutTag(number, 1, out);
        for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(bits >> (8 * i)));
        return absl::OkStatus();
      }
      case FieldDescriptor::TYPE_FLOAT: {
        if (!value.IsNumber()) return Error("", "want a JSON number");
        float f = static_cast<float>(value.GetDouble());
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        PutTag(number, 5, out);
        for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(bits >> (8 * i)));
        return absl::OkStatus();
      }
      case FieldDescriptor::TYPE_MESSAGE: {
        std::string encoded;
        absl::Status status = Embedded(field->message_type(), value, &encoded);
        if (!status.ok()) return status;
        PutBytes(number, encoded, out);
        return absl::OkStatus();
      }
      default:
        return Error("", absl::StrCat("unsupported proto type ", field->type_name()));
    }
  }

  // The body of a message-typed value: the well-known types by their JSON
  // rules, everything else member by member.
  absl::Status Embedded(const Descriptor* message, const rapidjson::Value& value, std::string* out) {
    const std::string& name = message->full_name();
    if (name == kTime || name == kMicroTime) {
      if (!value.IsString()) return Error("", "want an RFC 3339 time string");
      absl::Time time;
      std::string error;
      if (!absl::ParseTime(absl::RFC3339_full, A(Str(value)), &time, &error)) {
        return Error("", absl::StrCat("not an RFC 3339 time: ", error));
      }
      const int64_t seconds = absl::ToUnixSeconds(time);
      const int64_t nanos = absl::ToInt64Nanoseconds(time - absl::FromUnixSeconds(seconds));
      PutVarintField(1, static_cast<uint64_t>(seconds), out);
      PutVarintField(2, static_cast<uint64_t>(nanos), out);
      return absl::OkStatus();
    }
    if (name == kDuration) {
      int64_t nanos;
      if (!value.IsString() || !ParseGoDuration(Str(value), &nanos)) {
        return Error("", "want a Go duration string such as \"1m30s\"");
      }
      PutVarintField(1, static_cast<uint64_t>(nanos), out);
      return absl::OkStatus();
    }
    if (name == kQuantity) {
      if (!value.IsString()) return Error("", "want a quantity string");
      PutBytes(1, Str(value), out);
      return absl::OkStatus();
    }
    if (name == kIntOrString) {
      if (value.IsInt()) {
        PutVarintField(1, 0, out);
        PutVarintField(2, static_cast<uint64_t>(static_cast<int64_t>(value.GetInt())), out);
        PutBytes(3, "", out);
      } else if (value.IsString()) {
        PutVarintField(1, 1, out);
        PutVarintField(2, 0, out);
        PutBytes(3, Str(value), out);
      } else {
        return Error("", "want a 32-bit integer or a string");
      }
      return absl::OkStatus();
    }
    if (name == kRawExtension || name == kFieldsV1) {
      std::string raw;
      if (absl::Status status = AppendGoJson(value, &raw); !status.ok()) return status;
      PutBytes(1, raw, out);
      return absl::OkStatus();
    }
    // Go types declared as slices (type ExtraValue []string) are messages
    // with one repeated `items` field; their JSON is the array itself.
    if (value.IsArray() && message->field_count() == 1 && message->field(0)->is_repeated() &&
        message->field(0)->name() == "items") {
      return Field(message->field(0), value, out);
    }
    return Message(message, value, false, out);
  }

  // Compact JSON as Go's encoding/json compacts an embedded raw message
  // (RawExtension, FieldsV1). Numbers come out as RapidJSON writes them: the
  // same text for integers; a float may be spelled differently (1e+21
  // against 1e21), which Go's decoders read as the same number. Each array
  // or object counts against the same depth as the messages around it: the
  // recursion is one stack frame per level, whoever built the document.
  absl::Status AppendGoJson(const rapidjson::Value& value, std::string* out) {
    switch (value.GetType()) {
      case rapidjson::kObjectType: {
        if (++depth_ > kMaxDepth) return Error("", "nested too deeply");
        out->push_back('{');
        bool first = true;
        for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it) {
          if (!first) out->push_back(',');
          first = false;
          AppendGoString(Str(it->name), out);
          out->push_back(':');
          if (absl::Status status = AppendGoJson(it->value, out); !status.ok()) return status;
        }
        out->push_back('}');
        --depth_;
        return absl::OkStatus();
      }
      case rapidjson::kArrayType: {
        if (++depth_ > kMaxDepth) return Error("", "nested too deeply");
        out->push_back('[');
        bool first = true;
        for (const auto& element : value.GetArray()) {
          if (!first) out->push_back(',');
          first = false;
          if (absl::Status status = AppendGoJson(element, out); !status.ok()) return status;
        }
        out->push_back(']');
        --depth_;
        return absl::OkStatus();
      }
      case rapidjson::kStringType:
        AppendGoString(Str(value), out);
        return absl::OkStatus();
      default: {
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
        value.Accept(writer);
        out->append(buffer.GetString(), buffer.GetSize());
        return absl::OkStatus();
      }
    }
  }

  const KubeProtobuf& encoder_;
  int depth_ = 0;
  std::string path_;
};

const KubeProtobuf& KubeProtobuf::Default() {
  static const KubeProtobuf* const encoder = [] {
    auto created = Create(kube_proto_schemas::DescriptorSet(), kube_proto_schemas::Groups(),
                          kube_proto_schemas::FieldNames(), kube_proto_schemas::AlwaysWritten());
    // The schemas are built into the binary: failing here is a build defect.
    if (!created.ok()) {
      std::fprintf(stderr, "informerd: the built-in Kubernetes protobuf schemas: %s\n",
                   created.status().ToString().c_str());
      std::abort();
    }
    return created->release();
  }();
  return *encoder;
}

absl::StatusOr<std::unique_ptr<KubeProtobuf>> KubeProtobuf::Create(std::string_view descriptor_set,
                                                                   std::string_view groups,
                                                                   std::string_view field_names,
                                                                   std::string_view always_written) {
  std::unique_ptr<KubeProtobuf> encoder(new KubeProtobuf());
  google::protobuf::FileDescriptorSet set;
  if (!set.ParseFromArray(descriptor_set.data(), static_cast<int>(descriptor_set.size()))) {
    return absl::InvalidArgumentError("kube protobuf schemas: not a FileDescriptorSet");
  }
  for (const auto& file : set.file()) {
    if (encoder->pool_.BuildFile(file) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("kube protobuf schemas: bad file ", file.name()));
    }
  }
  std::unordered_map<std::string, std::string> group_of_package;
  for (absl::string_view line : absl::StrSplit(A(groups), '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ');
    if (words.size() != 2) return absl::InvalidArgumentError(absl::StrCat("kube protobuf groups: bad line ", line));
    absl::string_view package = words[0];
    absl::string_view version = package.substr(package.rfind('.') + 1);
    std::string group_version = words[1] == "core" ? std::string(version)
                                                    : absl::StrCat(words[1], "/", version);
    encoder->packages_[group_version] = std::string(package);
  }
  // Every message's JSON names: the proto name unless the Go tags say otherwise.
  std::unordered_map<std::string, std::unordered_map<std::string, std::string>> renames;
  for (absl::string_view line : absl::StrSplit(A(field_names), '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ');
    if (words.size() != 3) return absl::InvalidArgumentError(absl::StrCat("kube protobuf names: bad line ", line));
    renames[std::string(words[0])][std::string(words[1])] = std::string(words[2]);
  }
  std::unordered_map<std::string, std::unordered_map<std::string, bool>> always;
  for (absl::string_view line : absl::StrSplit(A(always_written), '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ');
    if (words.size() != 3) return absl::InvalidArgumentError(absl::StrCat("kube protobuf always: bad line ", line));
    always[std::string(words[0])][std::string(words[1])] = true;
  }
  for (const auto& file : set.file()) {
    const google::protobuf::FileDescriptor* descriptor = encoder->pool_.FindFileByName(file.name());
    std::vector<const Descriptor*> pending;
    for (int i = 0; i < descriptor->message_type_count(); ++i) pending.push_back(descriptor->message_type(i));
    while (!pending.empty()) {
      const Descriptor* message = pending.back();
      pending.pop_back();
      for (int i = 0; i < message->nested_type_count(); ++i) pending.push_back(message->nested_type(i));
      MessageInfo& info = encoder->messages_[message];
      auto renamed = renames.find(message->full_name());
      auto written = always.find(message->full_name());
      for (int i = 0; i < message->field_count(); ++i) {
        const FieldDescriptor* field = message->field(i);
        std::string json_name = field->name();
        if (renamed != renames.end()) {
          auto it = renamed->second.find(field->name());
          if (it != renamed->second.end()) json_name = it->second;
        }
        if (written != always.end() && written->second.count(field->name()) && !field->is_repeated()) {
          info.always.push_back(field);
        }
        if (json_name == "-" && field->message_type() != nullptr && !field->is_repeated()) {
          info.inlined.push_back(field);
        } else if (json_name != "-") {
          info.by_json_name[json_name] = field;
        }
      }
    }
  }
  return encoder;
}

const KubeProtobuf::MessageInfo& KubeProtobuf::Info(const Descriptor* message) const {
  // Every message of the pool has an entry (Create), and messages come only
  // from the pool.
  return messages_.at(message);
}

const Descriptor* KubeProtobuf::Find(std::string_view api_version, std::string_view kind) const {
  auto package = packages_.find(std::string(api_version));
  if (package == packages_.end()) return nullptr;
  const Descriptor* message = pool_.FindMessageTypeByName(absl::StrCat(package->second, ".", A(kind)));
  // A top-level object has metadata; this also keeps helper messages that
  // share a kind's name out.
  if (message == nullptr || message->FindFieldByName("metadata") == nullptr) return nullptr;
  return message;
}

bool KubeProtobuf::Knows(std::string_view api_version, std::string_view kind) const {
  return Find(api_version, kind) != nullptr;
}

absl::Status KubeProtobuf::CheckFieldPath(std::string_view api_version, std::string_view kind,
                                          std::string_view path) const {
  const Descriptor* message = Find(api_version, kind);
  if (message == nullptr) {
    return absl::NotFoundError(absl::StrCat("no protobuf schema for ", A(api_version), " ", A(kind)));
  }
  std::vector<absl::string_view> segments = absl::StrSplit(A(path), '.');
  // The TypeMeta members are not fields of the kind's message.
  if (segments[0] == "apiVersion" || segments[0] == "kind") {
    if (segments.size() == 1) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(segments[0], " is a string: no field \"",
                                                   segments[1], "\" below it"));
  }
  // What the current segment names a field of; null: a scalar.
  const Descriptor* current = message;
  std::string scalar_name;  // what the scalar is, for the message
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string segment(segments[i]);
    if (current == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(segments[i - 1], " is ", scalar_name,
                                                     ": no field \"", segment, "\" below it"));
    }
    // A field of the message, or of one inlined into its JSON (ObjectMeta's
    // members in a List's metadata, TypeMeta's...).
    const FieldDescriptor* field = nullptr;
    std::vector<const Descriptor*> pending = {current};
    while (field == nullptr && !pending.empty()) {
      const MessageInfo& info = Info(pending.back());
      pending.pop_back();
      auto it = info.by_json_name.find(segment);
      if (it != info.by_json_name.end()) {
        field = it->second;
        break;
      }
      for (const FieldDescriptor* inlined : info.inlined) pending.push_back(inlined->message_type());
    }
    if (field == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("no field \"", segment, "\" in ", current->full_name()));
    }
    if (field->is_map()) {
      // The next segment is a key, any key; then the values' fields.
      ++i;
      field = field->message_type()->map_value();
      if (i == segments.size()) return absl::OkStatus();
    }
    if (field->type() != FieldDescriptor::TYPE_MESSAGE) {
      current = nullptr;
      scalar_name = absl::StrCat("a ", field->type_name());
      continue;
    }
    const Descriptor* type = field->message_type();
    const std::string& name = type->full_name();
    if (name == kRawExtension || name == kFieldsV1) return absl::OkStatus();
    if (name == kTime || name == kMicroTime || name == kDuration || name == kQuantity ||
        name == kIntOrString) {
      current = nullptr;
      scalar_name = absl::StrCat("a ", name, " (a JSON scalar)");
      continue;
    }
    // Go slice types (ExtraValue []string) are their items in JSON.
    if (type->field_count() == 1 && type->field(0)->is_repeated() &&
        type->field(0)->name() == "items") {
      const FieldDescriptor* items = type->field(0);
      current = items->type() == FieldDescriptor::TYPE_MESSAGE ? items->message_type() : nullptr;
      scalar_name = "a list of scalars";
      continue;
    }
    current = type;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> KubeProtobuf::Encode(std::string_view json) const {
  rapidjson::Document document;
  if (absl::Status status = json::Parse(json, &document); !status.ok()) return status;
  return Encode(document);
}

absl::StatusOr<std::string> KubeProtobuf::Encode(const rapidjson::Value& object) const {
  if (!object.IsObject()) return absl::InvalidArgumentError("object: want a JSON object");
  auto api_version = object.FindMember("apiVersion");
  auto kind = object.FindMember("kind");
  if (api_version == object.MemberEnd() || !api_version->value.IsString() ||
      kind == object.MemberEnd() || !kind->value.IsString()) {
    return absl::InvalidArgumentError("apiVersion, kind: want strings");
  }
  const Descriptor* message = Find(Str(api_version->value), Str(kind->value));
  if (message == nullptr) {
    return absl::NotFoundError(absl::StrCat("no protobuf schema for ", A(Str(api_version->value)), " ",
                                            A(Str(kind->value))));
  }
  std::string raw;
  Writer writer(*this);
  if (absl::Status status = writer.Message(message, object, true, &raw); !status.ok()) return status;
  std::string type_meta;
  PutBytes(1, Str(api_version->value), &type_meta);
  PutBytes(2, Str(kind->value), &type_meta);
  std::string out(kMagic);
  out.reserve(kMagic.size() + type_meta.size() + raw.size() + 16);
  PutBytes(1, type_meta, &out);
  PutBytes(2, raw, &out);
  PutBytes(3, "", &out);  // contentEncoding
  PutBytes(4, "", &out);  // contentType
  return out;
}

}  // namespace informerd::kube_proto
