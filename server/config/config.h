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

struct Config {
  std::vector<ResourceConfig> resources;
  cache::HistoryLimits history;
  absl::Duration read_wait = absl::Seconds(3);
  absl::Duration bookmark_interval = absl::Minutes(1);
  size_t max_page_bytes = 3 << 20;
};

// Parses the YAML text of a config file; `source` names it in errors.
absl::StatusOr<Config> ParseConfig(std::string_view yaml, std::string_view source);

// Reads and parses a config file.
absl::StatusOr<Config> LoadConfigFile(const std::string& path);

// Parses the --resources flag: "configmaps,pods,deployments.apps" (a plural
// resource, then optionally '.' and its group) into resources with defaults.
absl::StatusOr<std::vector<ResourceConfig>> ParseResourceList(std::string_view list);

}  // namespace informerd::config

#endif  // INFORMERD_SERVER_CONFIG_CONFIG_H_
