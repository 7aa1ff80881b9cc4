#include "server/kubeapi/kube_json.h"

#include "absl/strings/str_cat.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace informerd::kubeapi {
namespace {

std::string Quoted(std::string_view text) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  return std::string(buffer.GetString(), buffer.GetSize());
}

// Appends `json` without its leading "kind" and "apiVersion" members when
// they are written first, as informerd's cache writes them (and as the
// apiserver's watch events carry them); unchanged otherwise.
void AppendWithoutTypeMembers(std::string_view json, const TypeNames& type, std::string* out) {
  for (const std::string& prefix :
       {absl::StrCat("{\"kind\":", Quoted(type.kind), ",\"apiVersion\":", Quoted(type.api_version),
                     ","),
        absl::StrCat("{\"apiVersion\":", Quoted(type.api_version), ",\"kind\":", Quoted(type.kind),
                     ",")}) {
    if (json.size() > prefix.size() && json.substr(0, prefix.size()) == prefix) {
      *out += '{';
      *out += json.substr(prefix.size());
      return;
    }
  }
  *out += json;
}

const char* EventType(v1::WatchEvent::Type type) {
  switch (type) {
    case v1::WatchEvent::ADDED:
      return "ADDED";
    case v1::WatchEvent::MODIFIED:
      return "MODIFIED";
    case v1::WatchEvent::DELETED:
      return "DELETED";
    case v1::WatchEvent::BOOKMARK:
      return "BOOKMARK";
    default:
      return "ERROR";
  }
}

}  // namespace

std::string ListJson(const TypeNames& type, const v1::ListResponse& response) {
  size_t bytes = 128;
  for (const v1::Object& item : response.items()) bytes += item.json().size() + 1;
  std::string out;
  out.reserve(bytes);
  absl::StrAppend(&out, "{\"kind\":", Quoted(absl::StrCat(type.kind, "List")),
                  ",\"apiVersion\":", Quoted(type.api_version),
                  ",\"metadata\":{\"resourceVersion\":", Quoted(response.resource_version()));
  if (!response.continue_token().empty()) {
    absl::StrAppend(&out, ",\"continue\":", Quoted(response.continue_token()));
  }
  out += "},\"items\":[";
  bool first = true;
  for (const v1::Object& item : response.items()) {
    if (!first) out += ',';
    first = false;
    AppendWithoutTypeMembers(item.json(), type, &out);
  }
  out += "]}";
  return out;
}

std::string WatchLineJson(const TypeNames& type, const v1::WatchEvent& event) {
  if (event.type() == v1::WatchEvent::BOOKMARK) {
    std::string annotations;
    if (event.initial_events_end()) {
      annotations = ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}";
    }
    return absl::StrCat("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":", Quoted(type.kind),
                        ",\"apiVersion\":", Quoted(type.api_version),
                        ",\"metadata\":{\"resourceVersion\":", Quoted(event.resource_version()),
                        annotations, "}}}\n");
  }
  return absl::StrCat("{\"type\":\"", EventType(event.type()), "\",\"object\":",
                      event.object().json(), "}\n");
}

ApiError MakeError(int code, std::string_view reason, std::string_view message) {
  ApiError error;
  error.code = code;
  error.status_json = absl::StrCat(
      "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
      "\"message\":",
      Quoted(message), ",\"reason\":", Quoted(reason), ",\"code\":", code, "}");
  return error;
}

ApiError ErrorFor(const grpc::Status& status, const TypeNames* type, std::string_view name) {
  const std::string& message = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::INVALID_ARGUMENT:
      return MakeError(400, "BadRequest", message);
    case grpc::StatusCode::UNAUTHENTICATED:
      return MakeError(401, "Unauthorized", message);
    case grpc::StatusCode::PERMISSION_DENIED:
      return MakeError(403, "Forbidden", message);
    case grpc::StatusCode::NOT_FOUND: {
      ApiError error;
      error.code = 404;
      std::string details;
      if (type != nullptr && !name.empty()) {
        details = absl::StrCat(",\"details\":{\"name\":", Quoted(name),
                               type->group.empty() ? "" : ",\"group\":",
                               type->group.empty() ? "" : Quoted(type->group),
                               ",\"kind\":", Quoted(type->resource), "}");
      }
      error.status_json = absl::StrCat(
          "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
          "\"message\":",
          Quoted(message), ",\"reason\":\"NotFound\"", details, ",\"code\":404}");
      return error;
    }
    case grpc::StatusCode::OUT_OF_RANGE:
      return MakeError(410, "Expired", message);
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return MakeError(429, "TooManyRequests", message);
    case grpc::StatusCode::UNAVAILABLE:
      return MakeError(503, "ServiceUnavailable", message);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return MakeError(504, "Timeout", message);
    default:
      return MakeError(500, "InternalError", message);
  }
}

std::string WatchErrorLine(const ApiError& error) {
  return absl::StrCat("{\"type\":\"ERROR\",\"object\":", error.status_json, "}\n");
}

}  // namespace informerd::kubeapi
