// Config: what informerd serves and its limits, from a YAML file and flags.
//
// Every problem is reported at start with the file, the key and the reason
// (e.g. "config /etc/informerd.yaml: resources[1].fieldIndexes: must be a
// list of strings"); unknown keys are errors, so a typo never silently
// falls back to a default.
#ifndef INFORMERD_SERVER_CONFIG_CONFIG_H_
#define INFORMERD_SERVER_CONFIG_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/cache/event_history.h"
#include "server/limits/request_limits.h"
#include "server/limits/transport_limits.h"

namespace informerd::config {

struct ResourceConfig {
  std::string group;    // "" for the core group
  std::string version;  // "" for the group's preferred version
  std::string resource;  // plural, e.g. "pods"
  // Upstream restrictions: only these objects are listed and watched.
  std::string namespace_;
  std::string label_selector;
  std::string field_selector;
  // Dotted JSON paths indexed for field selectors, e.g. "spec.nodeName".
  std::vector<std::string> field_indexes;
  bool strip_managed_fields = true;
  std::vector<std::string> drop_fields;
};

enum class AuthMode {
  kNone,        // every caller may read everything served
  kKubernetes,  // TokenReview + SubjectAccessReview per read
};

struct AuthConfig {
  AuthMode mode = AuthMode::kNone;
  // kNone on a listener other hosts can reach is refused unless this is set
  // (--allow-unauthenticated): every caller would read everything served.
  bool allow_unauthenticated = false;
  // kKubernetes on a plaintext listener other hosts can reach is refused
  // unless this is set (--allow-plaintext-tokens): bearer tokens would cross
  // the network in clear text.
  bool allow_plaintext_tokens = false;
  // A gRPC listener other hosts can reach is refused unless a proxy that
  // bounds HTTP/2 abuse (rapid reset, stream and connection floods) fronts
  // it (--behind-proxy) or the risk is accepted (--allow-unproxied): gRPC
  // 1.51 alone lets one peer with no token take a core and a GiB.
  bool behind_proxy = false;
  bool allow_unproxied = false;
  // TokenReview spec.audiences (--token-audiences). Non-empty: only tokens
  // issued for one of these audiences are accepted, and the review's
  // status.audiences must name one; empty: the API server's own audiences,
  // i.e. any token the API server itself accepts.
  std::vector<std::string> token_audiences;
  absl::Duration token_ttl = absl::Seconds(30);
  absl::Duration decision_ttl = absl::Seconds(10);
  size_t cache_size = 10000;  // entries per cache (tokens, decisions)
  // An open Watch is authorized again this often; withdrawn permission ends
  // it with PERMISSION_DENIED.
  absl::Duration recheck_interval = absl::Seconds(60);
  // ... and ends with UNAVAILABLE once its checks have failed this long.
  absl::Duration recheck_grace = absl::Seconds(120);
  // Bounds each TokenReview and SubjectAccessReview request.
  absl::Duration review_timeout = absl::Seconds(5);
  // Bearer tokens of the apiserver's service account issuer are checked
  // against its published keys before any TokenReview: forged ones are
  // refused at no review cost, signed ones reviewed in their subject's
  // budget (limits.signed_token_reviews).
  bool verify_token_signatures = true;
};

// TLS for the gRPC port; no certificate means plaintext.
struct TlsConfig {
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;  // set: clients need a certificate it signed
  absl::Duration refresh_interval = absl::Minutes(1);
  // The HTTP port (/healthz, /readyz, /metrics) uses the same certificate,
  // key and client CA.
  bool http = false;
};

// The cache service's request limits (CacheServiceOptions::limits) and the
// gRPC server's transport limits.
struct LimitsConfig : limits::RequestLimits {
  limits::TransportLimits transport;
};

// A tier's leaf: another informerd as the upstream, instead of the
// kube-apiserver (flag --upstream, key upstream).
struct UpstreamConfig {
  // grpc://HOST:PORT (plaintext) or grpcs://HOST:PORT (TLS); empty: the
  // kube-apiserver.
  std::string url;
  // grpcs: the CA bundle that signed the root's certificate; empty: the
  // system's roots.
  std::string ca_file;
  // grpcs: the leaf's client certificate and key, for a root with mTLS.
  std::string cert_file;
  std::string key_file;
  // The leaf's bearer token toward the root (a root with
  // --auth-mode=kubernetes), re-read for every call so a rotated
  // (projected) token is picked up.
  std::string token_file;
  // The root's initial lists, until their initial-events-end bookmark: the
  // items of one (upstreamListMaxItems, --upstream-list-max-items) and the
  // bytes of all together (upstreamListMaxBytes, --upstream-list-max-bytes;
  // 0: half the process's memory limit, its cgroup's, else 4 GiB).
  size_t list_max_items = 1'000'000;
  uint64_t list_max_bytes = 0;
};

// An upstream URL taken apart.
struct UpstreamAddress {
  std::string target;  // "host:port" for grpc::CreateChannel
  bool tls = false;
  bool loopback = false;  // the host is a loopback address or localhost
};

// Parses grpc://HOST:PORT or grpcs://HOST:PORT (HOST a name, an IPv4
// address or a bracketed IPv6 one); INVALID_ARGUMENT saying why not.
absl::StatusOr<UpstreamAddress> ParseUpstreamUrl(std::string_view url);

// OK when `upstream` is complete and coherent; otherwise INVALID_ARGUMENT
// naming the flag (--upstream, --upstream-ca-file, ...) and the reason.
absl::Status CheckUpstream(const UpstreamConfig& upstream);

// How a resource's state is read from the API server: its first list and
// every relist (kube::ReflectorOptions::streaming_list).
enum class UpstreamList {
  // Paged LISTs where the API server encodes LIST responses as it streams
  // them (1.33 and later, kube::ServerVersion::StreamsListEncoding), a
  // streaming list elsewhere (falling back to paged where it is refused).
  kAuto,
  // A streaming list (KEP-3157) first, paged LISTs where it is refused.
  kStream,
  // Paged LISTs only.
  kPaged,
};

struct Config {
  std::vector<ResourceConfig> resources;
  UpstreamConfig upstream;
  AuthConfig auth;
  TlsConfig tls;
  LimitsConfig limits;
  // Served only when named in resources (as everything is), and logged at
  // start; "secrets" is always in the list. RESOURCE or RESOURCE.GROUP.
  std::vector<std::string> sensitive_resources = {"secrets"};
  cache::HistoryLimits history;
  // A Watch resuming from before the history gets the events since its
  // version from the API server (ServedResourceOptions::history_backfill).
  bool history_backfill = true;
  absl::Duration read_wait = absl::Seconds(3);
  absl::Duration bookmark_interval = absl::Minutes(1);
  size_t max_page_bytes = 3 << 20;
  // See CacheServiceOptions::stalled_stream_timeout.
  absl::Duration stalled_stream_timeout = absl::Minutes(2);
  // A synced resource that hears nothing from its upstream this long fails
  // /readyz (admin/upstream_progress.h); zero: never.
  absl::Duration upstream_progress_timeout = absl::Minutes(5);
  // See CacheServiceOptions::initial_events_timeout.
  absl::Duration initial_events_timeout = absl::Minutes(10);
  // See CacheServiceOptions::max_list_snapshot_age.
  absl::Duration list_snapshot_max_age = absl::Minutes(5);
  // How each resource's state is read from the API server (flag
  // --upstream-list; see UpstreamList).
  UpstreamList upstream_list = UpstreamList::kAuto;
  // An http:// API server URL or insecure-skip-tls-verify in the kubeconfig
  // is refused unless this is set (--allow-insecure-upstream).
  bool allow_insecure_upstream = false;
};

// Parses the YAML text of a config file; `source` names it in errors.
absl::StatusOr<Config> ParseConfig(std::string_view yaml, std::string_view source);

// Reads and parses a config file.
absl::StatusOr<Config> LoadConfigFile(const std::string& path);

// "none" or "kubernetes", for --auth-mode.
absl::StatusOr<AuthMode> ParseAuthMode(std::string_view text);

// Whether informerd talks to the kube-apiserver: to read the resources, or,
// for a tier's leaf (config.upstream), only to review its own callers
// (auth.mode=kubernetes).
bool UsesApiserver(const Config& config);

// Whether `resource` is in `config.sensitive_resources`.
bool IsSensitive(const Config& config, const ResourceConfig& resource);

// Whether the gRPC listen address `address` ("host:port", "[v6]:port",
// "unix:path") is reachable only from this host: a loopback IP (127.0.0.0/8,
// ::1), "localhost", or a Unix socket. Anything else, including ":port",
// "0.0.0.0" and host names, counts as reachable from other hosts.
bool IsLoopbackAddress(std::string_view address);

// OK when `config` may serve on `grpc_address`; otherwise
// FAILED_PRECONDITION saying why and naming the flag that accepts the risk:
// no authentication (--allow-unauthenticated), or bearer tokens over
// plaintext (--allow-plaintext-tokens), on a non-loopback address.
absl::Status CheckListener(const Config& config, std::string_view grpc_address);

// Parses the --resources flag: "configmaps,pods,deployments.apps" (a plural
// resource, then optionally '.' and its group) into resources with defaults.
absl::StatusOr<std::vector<ResourceConfig>> ParseResourceList(std::string_view list);

}  // namespace informerd::config

#endif  // INFORMERD_SERVER_CONFIG_CONFIG_H_
