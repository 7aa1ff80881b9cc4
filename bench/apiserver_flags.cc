#include "bench/apiserver_flags.h"

#include "absl/flags/flag.h"
#include "bench/measurement.h"

ABSL_FLAG(std::string, apiserver_url, "", "kube-apiserver URL");
ABSL_FLAG(std::string, ca_file, "", "kube-apiserver CA file");
ABSL_FLAG(std::string, token_file, "", "bearer token file (admin)");
ABSL_FLAG(std::string, namespace_, "",
          "the namespace the program works in (writers and loaders create it)");

namespace informerd::bench {

ApiserverTarget ApiserverTargetFromFlags() {
  return ApiserverTarget{absl::GetFlag(FLAGS_apiserver_url), absl::GetFlag(FLAGS_ca_file),
                         ReadToken(absl::GetFlag(FLAGS_token_file)),
                         absl::GetFlag(FLAGS_namespace_)};
}

}  // namespace informerd::bench
