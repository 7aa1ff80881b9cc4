#include "server/kubeapi/read_request.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace informerd::kubeapi {
namespace {

std::string Param(const std::map<std::string, std::string>& query, const char* name) {
  auto it = query.find(name);
  return it == query.end() ? std::string() : it->second;
}

absl::StatusOr<bool> BoolParam(const std::map<std::string, std::string>& query,
                               const char* name) {
  auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return false;
  absl::StatusOr<bool> parsed = ParseQueryBool(it->second);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", parsed.status().message()));
  }
  return parsed;
}

absl::StatusOr<int64_t> IntParam(const std::map<std::string, std::string>& query,
                                 const char* name) {
  auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return 0;
  int64_t value = 0;
  if (!absl::SimpleAtoi(it->second, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": strconv.ParseInt: parsing \"", it->second, "\": invalid syntax"));
  }
  return value;
}

void SetResource(const ApiPath& path, v1::ResourceName* name) {
  name->set_group(path.group);
  name->set_version(path.version);
  name->set_resource(path.resource);
}

}  // namespace

absl::StatusOr<ReadRequest> MapReadRequest(const ApiPath& path,
                                           const std::map<std::string, std::string>& query) {
  ReadRequest read;
  absl::StatusOr<bool> watch = BoolParam(query, "watch");
  if (!watch.ok()) return watch.status();
  const std::string rv = Param(query, "resourceVersion");
  const std::string match = Param(query, "resourceVersionMatch");
  const std::string labels = Param(query, "labelSelector");
  std::string fields = Param(query, "fieldSelector");

  if (*watch) {
    // A watch of one object is a watch of its name, as at the apiserver.
    if (!path.name.empty()) {
      fields = absl::StrCat("metadata.name=", path.name, fields.empty() ? "" : ",", fields);
    }
    absl::StatusOr<bool> bookmarks = BoolParam(query, "allowWatchBookmarks");
    if (!bookmarks.ok()) return bookmarks.status();
    absl::StatusOr<bool> initial = BoolParam(query, "sendInitialEvents");
    if (!initial.ok()) return initial.status();
    absl::StatusOr<int64_t> timeout = IntParam(query, "timeoutSeconds");
    if (!timeout.ok()) return timeout.status();
    if (*timeout < 0) {
      return absl::InvalidArgumentError("timeoutSeconds: must be non-negative");
    }
    if (!match.empty() && !(match == "NotOlderThan" && *initial)) {
      read.kind = ReadRequest::Kind::kPassThrough;
      return read;
    }
    read.kind = ReadRequest::Kind::kWatch;
    SetResource(path, read.watch.mutable_resource());
    read.watch.set_namespace_(path.ns);
    read.watch.set_label_selector(labels);
    read.watch.set_field_selector(fields);
    // sendInitialEvents from "0" (any state) is informerd's latest.
    read.watch.set_resource_version(*initial && rv == "0" ? "" : rv);
    read.watch.set_send_initial_events(*initial);
    read.watch.set_allow_bookmarks(true);
    read.client_bookmarks = *bookmarks;
    if (*timeout > 0) read.timeout = absl::Seconds(*timeout);
    return read;
  }

  if (!path.name.empty()) {
    if (!match.empty()) return read;  // pass through
    read.kind = ReadRequest::Kind::kGet;
    SetResource(path, read.get.mutable_resource());
    read.get.set_namespace_(path.ns);
    read.get.set_name(path.name);
    if (rv != "0") read.get.set_min_resource_version(rv);
    return read;
  }

  absl::StatusOr<int64_t> limit = IntParam(query, "limit");
  if (!limit.ok()) return limit.status();
  const std::string token = Param(query, "continue");
  const bool exact_version = !rv.empty() && rv != "0";
  if (match == "Exact" || (!match.empty() && match != "NotOlderThan") ||
      (match.empty() && exact_version && *limit > 0) || (!token.empty() && !rv.empty())) {
    return read;  // pass through: the apiserver answers (or refuses) these
  }
  read.kind = ReadRequest::Kind::kList;
  SetResource(path, read.list.mutable_resource());
  read.list.set_namespace_(path.ns);
  read.list.set_label_selector(labels);
  read.list.set_field_selector(fields);
  // A negative limit is no limit at the apiserver.
  read.list.set_limit(*limit > 0 ? *limit : 0);
  read.list.set_continue_token(token);
  if (exact_version) read.list.set_resource_version(rv);
  return read;
}

absl::StatusOr<bool> ParseQueryBool(const std::string& value) {
  if (value == "1" || value == "t" || value == "T" || value == "true" || value == "TRUE" ||
      value == "True") {
    return true;
  }
  if (value == "0" || value == "f" || value == "F" || value == "false" || value == "FALSE" ||
      value == "False") {
    return false;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("strconv.ParseBool: parsing \"", value, "\": invalid syntax"));
}

}  // namespace informerd::kubeapi
