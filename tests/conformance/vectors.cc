#include "tests/conformance/vectors.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "rapidjson/document.h"

namespace informerd::conformance {
namespace {

absl::StatusOr<rapidjson::Document> Read(const std::string& name) {
  // Bazel runs tests in the workspace's runfiles directory.
  std::string path = "tests/conformance/" + name;
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream text;
  text << in.rdbuf();
  rapidjson::Document document;
  document.Parse(text.str().c_str());
  if (document.HasParseError() || !document.IsObject()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a JSON object"));
  }
  return document;
}

std::string String(const rapidjson::Value& object, const char* member) {
  return object[member].GetString();
}

std::optional<std::string> OptionalString(const rapidjson::Value& object, const char* member) {
  if (!object.HasMember(member) || object[member].IsNull()) return std::nullopt;
  return object[member].GetString();
}

std::vector<SelectorCase> Cases(const rapidjson::Value& array) {
  std::vector<SelectorCase> cases;
  for (const auto& c : array.GetArray()) {
    SelectorCase out{String(c, "selector"), c["valid"].GetBool(), {}};
    if (out.valid) {
      for (const auto& m : c["matches"].GetArray()) out.matches.push_back(m.GetString());
    }
    cases.push_back(std::move(out));
  }
  return cases;
}

std::vector<RelistObject> Objects(const rapidjson::Value& array) {
  std::vector<RelistObject> objects;
  for (const auto& o : array.GetArray()) {
    objects.push_back({String(o, "namespace"), String(o, "name"), String(o, "resource_version"),
                       String(o, "uid")});
  }
  return objects;
}

}  // namespace

absl::StatusOr<SelectorVectors> LoadSelectorVectors() {
  absl::StatusOr<rapidjson::Document> document = Read("selectors.json");
  if (!document.ok()) return document.status();
  SelectorVectors vectors;
  vectors.namespace_ = String(*document, "namespace");
  for (const auto& o : (*document)["objects"].GetArray()) {
    SelectorObject object{String(o, "name"), {}};
    for (const auto& label : o["labels"].GetObject()) {
      object.labels.emplace_back(label.name.GetString(), label.value.GetString());
    }
    std::sort(object.labels.begin(), object.labels.end());
    vectors.objects.push_back(std::move(object));
  }
  std::sort(vectors.objects.begin(), vectors.objects.end(),
            [](const SelectorObject& a, const SelectorObject& b) { return a.name < b.name; });
  vectors.label_selectors = Cases((*document)["label_selectors"]);
  vectors.field_selectors = Cases((*document)["field_selectors"]);
  return vectors;
}

absl::StatusOr<std::vector<RelistCase>> LoadRelistVectors() {
  absl::StatusOr<rapidjson::Document> document = Read("relist.json");
  if (!document.ok()) return document.status();
  std::vector<RelistCase> cases;
  for (const auto& c : (*document)["cases"].GetArray()) {
    RelistCase out{String(c, "name"), Objects(c["before"]), Objects(c["after"]), {}};
    for (const auto& e : c["events"].GetArray()) {
      out.events.push_back({String(e, "type"), String(e, "namespace"), String(e, "name"),
                            OptionalString(e, "old_resource_version"),
                            OptionalString(e, "new_resource_version")});
    }
    cases.push_back(std::move(out));
  }
  return cases;
}

std::map<std::string, std::vector<std::string>> PerKey(const std::vector<RelistEvent>& events) {
  std::map<std::string, std::vector<std::string>> out;
  for (const RelistEvent& e : events) {
    out[e.namespace_ + "/" + e.name].push_back(
        absl::StrCat(e.type, " ", e.old_resource_version.value_or("none"), "->",
                     e.new_resource_version.value_or("none")));
  }
  return out;
}

}  // namespace informerd::conformance
