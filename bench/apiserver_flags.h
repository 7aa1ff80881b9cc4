// The command-line flags that point a benchmark program at the
// kube-apiserver and its namespace (--apiserver_url, --ca_file,
// --token_file, --namespace_), defined once for every program that links
// this library.
#ifndef INFORMERD_BENCH_APISERVER_FLAGS_H_
#define INFORMERD_BENCH_APISERVER_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "bench/apiserver_target.h"

ABSL_DECLARE_FLAG(std::string, apiserver_url);
ABSL_DECLARE_FLAG(std::string, ca_file);
ABSL_DECLARE_FLAG(std::string, token_file);
ABSL_DECLARE_FLAG(std::string, namespace_);

namespace informerd::bench {

// What the flags name, with the token read from --token_file.
ApiserverTarget ApiserverTargetFromFlags();

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_APISERVER_FLAGS_H_
