#include "server/config/config.h"

#include <arpa/inet.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
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

  // One key of a mapping and how its value is read into the target: each
  // mapping's keys are listed once, here, for reading and for refusing
  // unknown keys alike.
  template <typename Target>
  struct Field {
    const char* key;
    absl::Status (*read)(const Parser& parser, const YAML::Node& value, const std::string& path,
                         Target* out);
  };

  template <typename Target, size_t N>
  absl::Status Fields(const YAML::Node& node, const std::string& where,
                      const Field<Target> (&fields)[N], Target* out) const {
    if (!node.IsMap()) return Error(where.empty() ? "(top level)" : where, "must be a mapping");
    for (const auto& entry : node) {
      const std::string key = entry.first.as<std::string>();
      const Field<Target>* field = std::find_if(
          std::begin(fields), std::end(fields), [&](const Field<Target>& f) { return key == f.key; });
      if (field == std::end(fields)) return Error(Join(where, key), "unknown key");
      if (absl::Status status = field->read(*this, entry.second, Join(where, key), out);
          !status.ok()) {
        return status;
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

  absl::Status Seconds(const YAML::Node& node, const std::string& key, int64_t min, int64_t max,
                       absl::Duration* out) const {
    int64_t number = 0;
    absl::Status status = Count(node, key, min, max, &number);
    if (status.ok()) *out = absl::Seconds(number);
    return status;
  }

  template <typename Number>
  absl::Status Size(const YAML::Node& node, const std::string& key, int64_t min, int64_t max,
                    Number* out) const {
    int64_t number = 0;
    absl::Status status = Count(node, key, min, max, &number);
    if (status.ok()) *out = static_cast<Number>(number);
    return status;
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
    using R = ResourceConfig;
    static constexpr Field<R> kFields[] = {
        {"resource", [](const Parser& p, const YAML::Node& v, const std::string& k, R* o) {
           return p.String(v, k, &o->resource);
         }},
        {"group", [](const Parser& p, const YAML::Node& v, const std::string& k, R* o) {
           return p.String(v, k, &o->group);
         }},
        {"version", [](const Parser& p, const YAML::Node& v, const std::string& k, R* o) {
           return p.String(v, k, &o->version);
         }},
        {"namespace", [](const Parser& p, const YAML::Node& v, const std::string& k, R* o) {
           return p.String(v, k, &o->namespace_);
         }},
        {"labelSelector", [](const Parser& p, const YAML::Node& v, const std::string& k, R* o) {
           return p.String(v, k, &o->label_selector);
         }},
        {"fieldSelector", [](const Parser& p, const YAML::Node& v, const std::string& k, R* o) {
           return p.String(v, k, &o->field_selector);
         }},
        {"fieldIndexes", [](const Parser& p, const YAML::Node& v, const std::string& k, R* o) {
           return p.Strings(v, k, &o->field_indexes);
         }},
        {"dropFields", [](const Parser& p, const YAML::Node& v, const std::string& k, R* o) {
           return p.Strings(v, k, &o->drop_fields);
         }},
        {"stripManagedFields", [](const Parser& p, const YAML::Node& v, const std::string& k,
                                  R* o) { return p.Bool(v, k, &o->strip_managed_fields); }},
    };
    if (absl::Status status = Fields(node, where, kFields, out); !status.ok()) return status;
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
    using T = TlsConfig;
    static constexpr Field<T> kFields[] = {
        {"certFile", [](const Parser& p, const YAML::Node& v, const std::string& k, T* o) {
           return p.String(v, k, &o->cert_file);
         }},
        {"keyFile", [](const Parser& p, const YAML::Node& v, const std::string& k, T* o) {
           return p.String(v, k, &o->key_file);
         }},
        {"clientCaFile", [](const Parser& p, const YAML::Node& v, const std::string& k, T* o) {
           return p.String(v, k, &o->client_ca_file);
         }},
        {"http", [](const Parser& p, const YAML::Node& v, const std::string& k, T* o) {
           return p.Bool(v, k, &o->http);
         }},
        {"refreshSeconds", [](const Parser& p, const YAML::Node& v, const std::string& k, T* o) {
           return p.Seconds(v, k, 1, 86400, &o->refresh_interval);
         }},
    };
    return Fields(node, where, kFields, out);
  }

  absl::Status Limits(const YAML::Node& node, const std::string& where,
                      LimitsConfig* out) const {
    using L = LimitsConfig;
    static constexpr Field<L> kFields[] = {
        {"maxWatches", [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 1'000'000, &o->max_watches);
         }},
        {"maxWatchesPerIdentity", [](const Parser& p, const YAML::Node& v, const std::string& k,
                                     L* o) { return p.Size(v, k, 1, 1'000'000, &o->max_watches_per_identity); }},
        {"maxLists", [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 1'000'000, &o->max_lists);
         }},
        {"maxListsPerIdentity", [](const Parser& p, const YAML::Node& v, const std::string& k,
                                   L* o) { return p.Size(v, k, 1, 1'000'000, &o->max_lists_per_identity); }},
        {"maxInitialBytes", [](const Parser& p, const YAML::Node& v, const std::string& k,
                               L* o) {
           return p.Size(v, k, 1, size_t{1} << 40, &o->max_initial_bytes);
         }},
        {"maxInitialBytesPerIdentity",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, size_t{1} << 40, &o->max_initial_bytes_per_identity);
         }},
        {"maxWaitingReads", [](const Parser& p, const YAML::Node& v, const std::string& k,
                               L* o) { return p.Size(v, k, 1, 1'000'000, &o->max_waiting_reads); }},
        {"maxWaitingReadsPerIdentity",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 1'000'000, &o->max_waiting_reads_per_identity);
         }},
        {"requestsPerSecond", [](const Parser& p, const YAML::Node& v, const std::string& k,
                                 L* o) { return p.Size(v, k, 1, 1'000'000, &o->rates.total_per_second); }},
        {"requestBurst", [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 1'000'000, &o->rates.total_burst);
         }},
        {"requestsPerSecondPerIdentity",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 1'000'000, &o->rates.per_identity_per_second);
         }},
        {"requestBurstPerIdentity",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 1'000'000, &o->rates.per_identity_burst);
         }},
        {"maxConcurrentStreamsPerConnection",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 1'000'000, &o->transport.max_concurrent_streams);
         }},
        {"maxConnectionIdleSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Seconds(v, k, 1, 86400 * 30, &o->transport.max_connection_idle);
         }},
        {"maxConnectionAgeSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Seconds(v, k, 1, 86400 * 30, &o->transport.max_connection_age);
         }},
        {"maxConnectionAgeGraceSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Seconds(v, k, 1, 86400, &o->transport.max_connection_age_grace);
         }},
        {"minClientPingIntervalSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Seconds(v, k, 1, 3600, &o->transport.min_ping_interval);
         }},
        {"grpcMemoryQuotaBytes",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, size_t{16} << 20, size_t{64} << 30,
                         &o->transport.memory_quota_bytes);
         }},
        {"tokenReviewsPerSecond",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 100'000, &o->token_reviews.total_per_second);
         }},
        {"tokenReviewBurst", [](const Parser& p, const YAML::Node& v, const std::string& k,
                                L* o) { return p.Size(v, k, 1, 100'000, &o->token_reviews.total_burst); }},
        {"tokenReviewsPerSecondPerLane",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 100'000, &o->token_reviews.per_identity_per_second);
         }},
        {"tokenReviewBurstPerLane",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 100'000, &o->token_reviews.per_identity_burst);
         }},
        {"signedTokenReviewsPerSecond",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 100'000, &o->signed_token_reviews.total_per_second);
         }},
        {"signedTokenReviewBurst",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 100'000, &o->signed_token_reviews.total_burst);
         }},
        {"signedTokenReviewsPerSecondPerAccount",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 100'000, &o->signed_token_reviews.per_identity_per_second);
         }},
        {"signedTokenReviewBurstPerAccount",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 100'000, &o->signed_token_reviews.per_identity_burst);
         }},
        // Behind a proxy, NAT or hostNetwork every caller has one address:
        // a budget per address was one budget that a flood could spend.
        {"tokenReviewsPerSecondPerAddress",
         [](const Parser& p, const YAML::Node&, const std::string& k, L*) {
           return p.Error(k, "no longer supported: TokenReviews are budgeted per lane (tokens "
                             "never accepted, tokens accepted before), not per client address; "
                             "use tokenReviewsPerSecondPerLane");
         }},
        {"tokenReviewBurstPerAddress",
         [](const Parser& p, const YAML::Node&, const std::string& k, L*) {
           return p.Error(k, "no longer supported: TokenReviews are budgeted per lane, not per "
                             "client address; use tokenReviewBurstPerLane");
         }},
        {"maxReviewsPerIdentity",
         [](const Parser& p, const YAML::Node& v, const std::string& k, L* o) {
           return p.Size(v, k, 1, 1'000, &o->max_reviews_per_identity);
         }},
    };
    return Fields(node, where, kFields, out);
  }

  absl::Status History(const YAML::Node& node, const std::string& where,
                       cache::HistoryLimits* out) const {
    using H = cache::HistoryLimits;
    static constexpr Field<H> kFields[] = {
        {"windowSeconds", [](const Parser& p, const YAML::Node& v, const std::string& k, H* o) {
           return p.Seconds(v, k, 1, 86400, &o->window);
         }},
        {"minEvents", [](const Parser& p, const YAML::Node& v, const std::string& k, H* o) {
           return p.Size(v, k, 1, 10'000'000, &o->min_events);
         }},
        {"maxEvents", [](const Parser& p, const YAML::Node& v, const std::string& k, H* o) {
           return p.Size(v, k, 1, 10'000'000, &o->max_events);
         }},
    };
    if (absl::Status status = Fields(node, where, kFields, out); !status.ok()) return status;
    if (out->min_events > out->max_events) {
      return Error(Join(where, "minEvents"), absl::StrCat("must not exceed ", where, ".maxEvents"));
    }
    return absl::OkStatus();
  }

  absl::Status Resources(const YAML::Node& node, const std::string& where,
                         std::vector<ResourceConfig>* out) const {
    if (!node.IsSequence()) return Error(where, "must be a list");
    for (size_t i = 0; i < node.size(); ++i) {
      ResourceConfig resource;
      if (absl::Status status = Resource(node[i], absl::StrCat(where, "[", i, "]"), &resource);
          !status.ok()) {
        return status;
      }
      out->push_back(std::move(resource));
    }
    return absl::OkStatus();
  }

  absl::Status Top(const YAML::Node& root, Config* config) const {
    using C = Config;
    static constexpr Field<C> kFields[] = {
        {"resources", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Resources(v, k, &o->resources);
         }},
        {"history", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.History(v, k, &o->history);
         }},
        {"historyBackfill", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Bool(v, k, &o->history_backfill);
         }},
        {"readWaitSeconds", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Seconds(v, k, 0, 600, &o->read_wait);
         }},
        {"bookmarkIntervalSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Seconds(v, k, 1, 3600, &o->bookmark_interval);
         }},
        {"maxPageBytes", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Size(v, k, 1024, 4 << 20, &o->max_page_bytes);
         }},
        {"stalledStreamSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Seconds(v, k, 1, 86400, &o->stalled_stream_timeout);
         }},
        {"upstreamProgressSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Seconds(v, k, 0, 86400, &o->upstream_progress_timeout);
         }},
        {"initialEventsSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Seconds(v, k, 1, 86400, &o->initial_events_timeout);
         }},
        {"listSnapshotMaxAgeSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Seconds(v, k, 1, 3600, &o->list_snapshot_max_age);
         }},
        {"authMode", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           std::string text;
           if (absl::Status status = p.String(v, k, &text); !status.ok()) return status;
           absl::StatusOr<AuthMode> mode = ParseAuthMode(text);
           if (!mode.ok()) return p.Error(k, std::string(mode.status().message()));
           o->auth.mode = *mode;
           return absl::OkStatus();
         }},
        {"authTokenCacheSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Seconds(v, k, 0, 3600, &o->auth.token_ttl);
         }},
        {"authDecisionCacheSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Seconds(v, k, 0, 3600, &o->auth.decision_ttl);
         }},
        {"authCacheSize", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Size(v, k, 1, 10'000'000, &o->auth.cache_size);
         }},
        {"authRecheckSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Seconds(v, k, 1, 86400, &o->auth.recheck_interval);
         }},
        {"authRecheckGraceSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Seconds(v, k, 1, 86400, &o->auth.recheck_grace);
         }},
        {"authReviewTimeoutSeconds",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Seconds(v, k, 1, 60, &o->auth.review_timeout);
         }},
        {"authVerifyTokenSignatures",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Bool(v, k, &o->auth.verify_token_signatures);
         }},
        {"sensitiveResources",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Strings(v, k, &o->sensitive_resources);
         }},
        {"tls", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Tls(v, k, &o->tls);
         }},
        {"limits", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Limits(v, k, &o->limits);
         }},
        {"upstream", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           if (absl::Status status = p.String(v, k, &o->upstream.url); !status.ok()) return status;
           absl::StatusOr<UpstreamAddress> address = ParseUpstreamUrl(o->upstream.url);
           if (!address.ok()) return p.Error(k, std::string(address.status().message()));
           return absl::OkStatus();
         }},
        {"upstreamCaFile", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.String(v, k, &o->upstream.ca_file);
         }},
        {"upstreamCertFile",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.String(v, k, &o->upstream.cert_file);
         }},
        {"upstreamKeyFile", [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.String(v, k, &o->upstream.key_file);
         }},
        {"upstreamTokenFile",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.String(v, k, &o->upstream.token_file);
         }},
        {"upstreamListMaxItems",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Size(v, k, 1, 1'000'000'000, &o->upstream.list_max_items);
         }},
        {"upstreamListMaxBytes",
         [](const Parser& p, const YAML::Node& v, const std::string& k, C* o) {
           return p.Size(v, k, 0, int64_t{1} << 44, &o->upstream.list_max_bytes);
         }},
    };
    if (root.IsNull()) return Error("(top level)", "empty file");
    return Fields(root, "", kFields, config);
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

bool UsesApiserver(const Config& config) {
  return config.upstream.url.empty() || config.auth.mode == AuthMode::kKubernetes;
}

bool IsSensitive(const Config& config, const ResourceConfig& resource) {
  std::string name = kube::KubectlName(resource.group, resource.resource);
  if (name == "secrets") return true;
  return std::find(config.sensitive_resources.begin(), config.sensitive_resources.end(), name) !=
         config.sensitive_resources.end();
}

bool IsLoopbackAddress(std::string_view text) {
  const absl::string_view address(text.data(), text.size());
  // Unix sockets are reachable through the file system only.
  if (absl::StartsWith(address, "unix:") || absl::StartsWith(address, "unix-abstract:")) {
    return true;
  }
  std::string host;
  if (absl::StartsWith(address, "[")) {
    size_t close = address.find(']');
    if (close == absl::string_view::npos) return false;
    host = std::string(address.substr(1, close - 1));
  } else {
    size_t colon = address.rfind(':');
    if (colon == absl::string_view::npos) return false;
    host = std::string(address.substr(0, colon));
  }
  if (absl::AsciiStrToLower(host) == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

absl::Status CheckListener(const Config& config, std::string_view grpc_address) {
  if (IsLoopbackAddress(grpc_address)) return absl::OkStatus();
  const std::string where = absl::StrCat("--grpc-address=", std::string(grpc_address),
                                         " is reachable from other hosts");
  if (config.auth.mode == AuthMode::kNone && !config.auth.allow_unauthenticated) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to serve without authentication: ", where,
        " and --auth-mode=none lets every caller read every served object. Use "
        "--auth-mode=kubernetes, listen on loopback (e.g. --grpc-address=127.0.0.1:50051), or "
        "accept the risk with --allow-unauthenticated"));
  }
  if (config.auth.mode == AuthMode::kKubernetes && config.tls.cert_file.empty() &&
      !config.auth.allow_plaintext_tokens) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to take bearer tokens over plaintext: ", where,
        " and without --tls-cert-file callers' tokens would cross the network in clear text. "
        "Set --tls-cert-file and --tls-key-file, listen on loopback, or accept the risk with "
        "--allow-plaintext-tokens (e.g. when a service mesh encrypts the traffic)"));
  }
  if (!config.auth.behind_proxy && !config.auth.allow_unproxied) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to face clients without a proxy: ", where,
        " and gRPC 1.51 alone does not bound HTTP/2 abuse: one peer with no token resetting "
        "streams took a core and 1.4 GiB. Put a proxy with HTTP/2 limits in front (the chart's "
        "HAProxy, or the proxy image: docs/SECURITY.md) and say so with --behind-proxy, listen "
        "on loopback behind it, or accept the risk with --allow-unproxied"));
  }
  return absl::OkStatus();
}

absl::StatusOr<UpstreamAddress> ParseUpstreamUrl(std::string_view text) {
  const absl::string_view url(text.data(), text.size());
  UpstreamAddress address;
  absl::string_view rest;
  if (absl::StartsWith(url, "grpc://")) {
    rest = url.substr(7);
  } else if (absl::StartsWith(url, "grpcs://")) {
    rest = url.substr(8);
    address.tls = true;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", url, "\" is not grpc://HOST:PORT (plaintext) or grpcs://HOST:PORT (TLS)"));
  }
  if (rest.find_first_of("/?#@") != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", url, "\": only HOST:PORT may follow the scheme (no path, query or user)"));
  }
  size_t colon = rest.rfind(':');
  if (absl::StartsWith(rest, "[")) {
    size_t close = rest.find(']');
    if (close == absl::string_view::npos || close + 1 != colon) colon = absl::string_view::npos;
  }
  const absl::string_view host = colon == absl::string_view::npos ? rest : rest.substr(0, colon);
  const absl::string_view port =
      colon == absl::string_view::npos ? absl::string_view() : rest.substr(colon + 1);
  int port_number = 0;
  bool port_ok = !port.empty() && port.size() <= 5;
  for (char c : port) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) port_ok = false;
  }
  if (port_ok) port_number = std::stoi(std::string(port));
  if (host.empty() || host == "[]") {
    return absl::InvalidArgumentError(absl::StrCat("\"", url, "\" has no host"));
  }
  if (!port_ok || port_number < 1 || port_number > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", url, "\" needs a port between 1 and 65535 (e.g. ", "grpc://",
                     host, ":50051)"));
  }
  address.target = std::string(rest);
  address.loopback = IsLoopbackAddress(std::string_view(rest.data(), rest.size()));
  return address;
}

absl::Status CheckUpstream(const UpstreamConfig& upstream) {
  if (upstream.url.empty()) {
    for (auto [flag, value] : {std::pair{"--upstream-ca-file (upstreamCaFile)", &upstream.ca_file},
                               std::pair{"--upstream-cert-file (upstreamCertFile)", &upstream.cert_file},
                               std::pair{"--upstream-key-file (upstreamKeyFile)", &upstream.key_file},
                               std::pair{"--upstream-token-file (upstreamTokenFile)", &upstream.token_file}}) {
      if (!value->empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag, ": needs --upstream (upstream), an upstream informerd"));
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<UpstreamAddress> address = ParseUpstreamUrl(upstream.url);
  if (!address.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--upstream (upstream): ", address.status().message()));
  }
  if (!address->tls) {
    for (auto [flag, value] : {std::pair{"--upstream-ca-file (upstreamCaFile)", &upstream.ca_file},
                               std::pair{"--upstream-cert-file (upstreamCertFile)", &upstream.cert_file},
                               std::pair{"--upstream-key-file (upstreamKeyFile)", &upstream.key_file}}) {
      if (!value->empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag, ": needs a TLS upstream (--upstream=grpcs://HOST:PORT)"));
      }
    }
  }
  if (upstream.cert_file.empty() != upstream.key_file.empty()) {
    return absl::InvalidArgumentError(
        upstream.cert_file.empty() ? "--upstream-key-file (upstreamKeyFile): needs --upstream-cert-file"
                                   : "--upstream-cert-file (upstreamCertFile): needs --upstream-key-file");
  }
  return absl::OkStatus();
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
