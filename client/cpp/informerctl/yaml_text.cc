#include "client/cpp/informerctl/yaml_text.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "yaml-cpp/yaml.h"

namespace informerd {
namespace informerctl {

namespace {

// Plain (unquoted) only for strings no YAML 1.1 or 1.2 reader resolves to
// another type: a letter or one of "_/" first, then letters, digits and
// "_.-/", and not a boolean or null word. Everything else is double-quoted.
bool PlainIsSafe(absl::string_view text) {
  if (text.empty()) return false;
  if (!absl::ascii_isalpha(text[0]) && text[0] != '_' && text[0] != '/') {
    return false;
  }
  for (char c : text) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '.' && c != '-' && c != '/') {
      return false;
    }
  }
  static const char* const kWords[] = {"y",  "yes", "n",    "no",    "on",
                                       "off", "true", "false", "null"};
  const std::string lower = absl::AsciiStrToLower(text);
  for (const char* word : kWords) {
    if (lower == word) return false;
  }
  return true;
}

void EmitString(absl::string_view text, YAML::Emitter* out) {
  if (PlainIsSafe(text)) {
    *out << std::string(text);
  } else {
    *out << YAML::DoubleQuoted << std::string(text);
  }
}

// The number as RapidJSON writes it: integers exactly, doubles in the
// shortest form that reads back the same.
std::string NumberText(const rapidjson::Value& number) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  number.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// REQUIRES: value nests at most kMaxYamlDepth - depth levels.
void Emit(const rapidjson::Value& value, int depth, YAML::Emitter* out) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      *out << YAML::Null;
      break;
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      *out << value.GetBool();
      break;
    case rapidjson::kNumberType:
      *out << NumberText(value);
      break;
    case rapidjson::kStringType:
      EmitString(absl::string_view(value.GetString(), value.GetStringLength()),
                 out);
      break;
    case rapidjson::kArrayType:
      if (value.Empty()) *out << YAML::Flow;
      *out << YAML::BeginSeq;
      for (const rapidjson::Value& item : value.GetArray()) Emit(item, depth + 1, out);
      *out << YAML::EndSeq;
      break;
    case rapidjson::kObjectType: {
      if (value.ObjectEmpty()) *out << YAML::Flow;
      std::vector<const rapidjson::Value::Member*> members;
      for (const auto& member : value.GetObject()) members.push_back(&member);
      std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
        return absl::string_view(a->name.GetString(), a->name.GetStringLength()) <
               absl::string_view(b->name.GetString(), b->name.GetStringLength());
      });
      *out << YAML::BeginMap;
      for (const rapidjson::Value::Member* member : members) {
        *out << YAML::Key;
        Emit(member->name, depth + 1, out);
        *out << YAML::Value;
        Emit(member->value, depth + 1, out);
      }
      *out << YAML::EndMap;
      break;
    }
  }
}

// The deepest nesting of value, counting value itself as 1, without
// recursion; stops counting past limit.
int NestingDepth(const rapidjson::Value& value, int limit) {
  struct Frame {
    const rapidjson::Value* value;
    int depth;
  };
  std::vector<Frame> pending = {{&value, 1}};
  int deepest = 0;
  while (!pending.empty() && deepest <= limit) {
    Frame frame = pending.back();
    pending.pop_back();
    deepest = std::max(deepest, frame.depth);
    if (frame.value->IsArray()) {
      for (const rapidjson::Value& item : frame.value->GetArray()) {
        pending.push_back({&item, frame.depth + 1});
      }
    } else if (frame.value->IsObject()) {
      for (const auto& member : frame.value->GetObject()) {
        pending.push_back({&member.value, frame.depth + 1});
      }
    }
  }
  return deepest;
}

}  // namespace

absl::StatusOr<std::string> JsonToYaml(absl::string_view json) {
  rapidjson::Document document;
  document.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (document.HasParseError()) {
    return absl::InvalidArgumentError(
        absl::StrCat("object JSON: ", rapidjson::GetParseError_En(document.GetParseError()),
                     " at offset ", document.GetErrorOffset()));
  }
  if (NestingDepth(document, kMaxYamlDepth) > kMaxYamlDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "object JSON: nested deeper than ", kMaxYamlDepth,
        " levels, too deep for YAML; -o json prints it"));
  }
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetNullFormat(YAML::LowerNull);
  out.SetBoolFormat(YAML::TrueFalseBool);
  out.SetBoolFormat(YAML::LowerCase);
  Emit(document, 1, &out);
  if (!out.good()) {
    return absl::InternalError(absl::StrCat("YAML emitter: ", out.GetLastError()));
  }
  return absl::StrCat(out.c_str(), "\n");
}

}  // namespace informerctl
}  // namespace informerd
