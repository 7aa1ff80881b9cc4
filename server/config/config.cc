#include "server/config/config.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "server/kube/resource_name.h"

namespace informerd::config {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view source) : source_(source) {}

  absl::Status Error(const std::string& key, const std::string& reason) const {
    return absl::InvalidArgumentError(absl::StrCat("config ", source_, ": ", key, ": ", reason));
  }

  absl::Status CheckKeys(const YAML::Node& node, const std::string& where,
                         const std::set<std::string>& allowed) const {
    if (!node.IsMap()) return Error(where.empty() ? "(top level)" : where, "must be a mapping");
    for (const auto& entry : node) {
      std::string key = entry.first.as<std::string>();
      if (allowed.count(key) == 0) {
        return Error(Join(where, key), "unknown key");
      }
    }
    return absl::OkStatus();
  }

  static std::string Join(const std::string& where, const std::string& key) {
    return where.empty() ? key : absl::StrCat(where, ".", key);
  }

  absl::Status String(const YAML::Node& node, const std::string& key, std::string* out) const {
    if (!node.IsScalar()) return Error(key, "must be a string");
    *out = node.as<std::string>();
    return absl::OkStatus();
  }

  absl::Status Bool(const YAML::Node& node, const std::string& key, bool* out) const {
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
      return Error(key, "must be true or false");
    }
    *out = value;
    return absl::OkStatus();
  }

  absl::Status Count(const YAML::Node& node, const std::string& key, int64_t min, int64_t max,
                     int64_t* out) const {
    int64_t value = 0;
    if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, value)) {
      return Error(key, "must be a whole number");
    }
    if (value < min || value > max) {
      return Error(key, absl::StrCat("must be between ", min, " and ", max));
    }
    *out = value;
    return absl::OkStatus();
  }

  absl::Status Strings(const YAML::Node& node, const std::string& key,
                       std::vector<std::string>* out) const {
    if (!node.IsSequence()) return Error(key, "must be a list of strings");
    for (const auto& item : node) {
      if (!item.IsScalar()) return Error(key, "must be a list of strings");
      out->push_back(item.as<std::string>());
    }
    return absl::OkStatus();
  }

  absl::Status Resource(const YAML::Node& node, const std::string& where,
                        ResourceConfig* out) const {
    if (auto status = CheckKeys(node, where,
                                {"resource", "group", "version", "namespace", "labelSelector",
                                 "fieldSelector", "fieldIndexes", "stripManagedFields",
                                 "dropFields"});
        !status.ok()) {
      return status;
    }
    for (const auto& entry : node) {
      std::string key = entry.first.as<std::string>();
      std::string path = Join(where, key);
      const YAML::Node& value = entry.second;
      absl::Status status;
      if (key == "resource") status = String(value, path, &out->resource);
      if (key == "group") status = String(value, path, &out->group);
      if (key == "version") status = String(value, path, &out->version);
      if (key == "namespace") status = String(value, path, &out->namespace_);
      if (key == "labelSelector") status = String(value, path, &out->label_selector);
      if (key == "fieldSelector") status = String(value, path, &out->field_selector);
      if (key == "fieldIndexes") status = Strings(value, path, &out->field_indexes);
      if (key == "dropFields") status = Strings(value, path, &out->drop_fields);
      if (key == "stripManagedFields") status = Bool(value, path, &out->strip_managed_fields);
      if (!status.ok()) return status;
    }
    if (out->resource.empty()) return Error(Join(where, "resource"), "required (e.g. pods)");
    for (const std::string& field : out->field_indexes) {
      if (field.empty() || field.front() == '.' || field.back() == '.') {
        return Error(Join(where, "fieldIndexes"),
                     absl::StrCat("\"", field, "\" is not a dotted path like spec.nodeName"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Tls(const YAML::Node& node, const std::string& where, TlsConfig* out) const {
    if (auto status = CheckKeys(node, where, {"certFile", "keyFile", "clientCaFile",
                                              "refreshSeconds", "http"});
        !status.ok()) {
      return status;
    }
    for (const auto& entry : node) {
      std::string key = entry.first.as<std::string>();
      std::string path = Join(where, key);
      absl::Status status;
      int64_t number = 0;
      if (key == "certFile") status = String(entry.second, path, &out->cert_file);
      if (key == "keyFile") status = String(entry.second, path, &out->key_file);
      if (key == "clientCaFile") status = String(entry.second, path, &out->client_ca_file);
      if (key == "http") status = Bool(entry.second, path, &out->http);
      if (key == "refreshSeconds") {
        status = Count(entry.second, path, 1, 86400, &number);
        out->refresh_interval = absl::Seconds(number);
      }
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  absl::Status Limits(const YAML::Node& node, const std::string& where,
                      LimitsConfig* out) const {
    if (auto status = CheckKeys(node, where, {"maxWatches", "maxWatchesPerIdentity", "maxLists",
                                              "maxListsPerIdentity", "requestsPerSecond",
                                              "requestBurst", "requestsPerSecondPerIdentity",
                                              "requestBurstPerIdentity"});
        !status.ok()) {
      return status;
    }
    for (const auto& entry : node) {
      std::string key = entry.first.as<std::string>();
      int64_t number = 0;
      if (auto status = Count(entry.second, Join(where, key), 1, 1'000'000, &number);
          !status.ok()) {
        return status;
      }
      size_t count = static_cast<size_t>(number);
      if (key == "maxWatches") out->max_watches = count;
      if (key == "maxWatchesPerIdentity") out->max_watches_per_identity = count;
      if (key == "maxLists") out->max_lists = count;
      if (key == "maxListsPerIdentity") out->max_lists_per_identity = count;
      if (key == "requestsPerSecond") out->rates.total_per_second = static_cast<double>(count);
      if (key == "requestBurst") out->rates.total_burst = static_cast<double>(count);
      if (key == "requestsPerSecondPerIdentity") {
        out->rates.per_identity_per_second = static_cast<double>(count);
      }
      if (key == "requestBurstPerIdentity") out->rates.per_identity_burst = static_cast<double>(count);
    }
    return absl::OkStatus();
  }

  absl::Status Top(const YAML::Node& root, Config* config) const {
    if (root.IsNull()) return Error("(top level)", "empty file");
    if (auto status = CheckKeys(root, "", {"resources", "history", "readWaitSeconds",
                                           "bookmarkIntervalSeconds", "maxPageBytes", "authMode",
                                           "authTokenCacheSeconds", "authDecisionCacheSeconds",
                                           "authCacheSize", "authRecheckSeconds",
                                           "authReviewTimeoutSeconds", "sensitiveResources",
                                           "tls", "limits"});
        !status.ok()) {
      return status;
    }
    for (const auto& entry : root) {
      std::string key = entry.first.as<std::string>();
      const YAML::Node& value = entry.second;
      int64_t number = 0;
      absl::Status status;
      if (key == "resources") {
        if (!value.IsSequence()) return Error(key, "must be a list");
        for (size_t i = 0; i < value.size(); ++i) {
          ResourceConfig resource;
          status = Resource(value[i], absl::StrCat("resources[", i, "]"), &resource);
          if (!status.ok()) return status;
          config->resources.push_back(std::move(resource));
        }
      } else if (key == "history") {
        status = CheckKeys(value, key, {"windowSeconds", "minEvents", "maxEvents"});
        if (!status.ok()) return status;
        for (const auto& field : value) {
          std::string name = field.first.as<std::string>();
          std::string path = Join(key, name);
          if (name == "windowSeconds") {
            status = Count(field.second, path, 1, 86400, &number);
            config->history.window = absl::Seconds(number);
          } else if (name == "minEvents") {
            status = Count(field.second, path, 1, 10'000'000, &number);
            config->history.min_events = static_cast<size_t>(number);
          } else {
            status = Count(field.second, path, 1, 10'000'000, &number);
            config->history.max_events = static_cast<size_t>(number);
          }
          if (!status.ok()) return status;
        }
        if (config->history.min_events > config->history.max_events) {
          return Error("history.minEvents", "must not exceed history.maxEvents");
        }
      } else if (key == "readWaitSeconds") {
        status = Count(value, key, 0, 600, &number);
        config->read_wait = absl::Seconds(number);
      } else if (key == "bookmarkIntervalSeconds") {
        status = Count(value, key, 1, 3600, &number);
        config->bookmark_interval = absl::Seconds(number);
      } else if (key == "maxPageBytes") {
        status = Count(value, key, 1024, 4 << 20, &number);
        config->max_page_bytes = static_cast<size_t>(number);
      } else if (key == "authMode") {
        std::string text;
        status = String(value, key, &text);
        if (!status.ok()) return status;
        absl::StatusOr<AuthMode> mode = ParseAuthMode(text);
        if (!mode.ok()) return Error(key, std::string(mode.status().message()));
        config->auth.mode = *mode;
      } else if (key == "authTokenCacheSeconds") {
        status = Count(value, key, 0, 3600, &number);
        config->auth.token_ttl = absl::Seconds(number);
      } else if (key == "authDecisionCacheSeconds") {
        status = Count(value, key, 0, 3600, &number);
        config->auth.decision_ttl = absl::Seconds(number);
      } else if (key == "authCacheSize") {
        status = Count(value, key, 1, 10'000'000, &number);
        config->auth.cache_size = static_cast<size_t>(number);
      } else if (key == "authRecheckSeconds") {
        status = Count(value, key, 1, 86400, &number);
        config->auth.recheck_interval = absl::Seconds(number);
      } else if (key == "authReviewTimeoutSeconds") {
        status = Count(value, key, 1, 60, &number);
        config->auth.review_timeout = absl::Seconds(number);
      } else if (key == "sensitiveResources") {
        status = Strings(value, key, &config->sensitive_resources);
      } else if (key == "tls") {
        status = Tls(value, key, &config->tls);
      } else if (key == "limits") {
        status = Limits(value, key, &config->limits);
      }
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

 private:
  std::string source_;
};

}  // namespace

absl::StatusOr<Config> ParseConfig(std::string_view yaml, std::string_view source) {
  Parser parser(source);
  Config config;
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    if (absl::Status status = parser.Top(root, &config); !status.ok()) return status;
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("config ", std::string(source), ": line ", e.mark.line + 1, ": ", e.msg));
  }
  return config;
}

absl::StatusOr<Config> LoadConfigFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(absl::StrCat("config ", path, ": cannot open the file"));
  std::stringstream text;
  text << file.rdbuf();
  return ParseConfig(text.str(), path);
}

absl::StatusOr<AuthMode> ParseAuthMode(std::string_view text) {
  if (text == "none") return AuthMode::kNone;
  if (text == "kubernetes") return AuthMode::kKubernetes;
  return absl::InvalidArgumentError(
      absl::StrCat("\"", std::string(text), "\" is not an auth mode; use none or kubernetes"));
}

bool IsSensitive(const Config& config, const ResourceConfig& resource) {
  std::string name = kube::KubectlName(resource.group, resource.resource);
  if (name == "secrets") return true;
  return std::find(config.sensitive_resources.begin(), config.sensitive_resources.end(), name) !=
         config.sensitive_resources.end();
}

absl::StatusOr<std::vector<ResourceConfig>> ParseResourceList(std::string_view list) {
  std::vector<ResourceConfig> resources;
  for (absl::string_view item :
       absl::StrSplit(absl::string_view(list.data(), list.size()), ',', absl::SkipWhitespace())) {
    ResourceConfig resource;
    size_t dot = item.find('.');
    resource.resource = std::string(item.substr(0, dot));
    if (dot != absl::string_view::npos) resource.group = std::string(item.substr(dot + 1));
    if (resource.resource.empty() || (dot != absl::string_view::npos && resource.group.empty())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--resources: \"", item, "\" is not RESOURCE or RESOURCE.GROUP (e.g. deployments.apps)"));
    }
    resources.push_back(std::move(resource));
  }
  return resources;
}

}  // namespace informerd::config
