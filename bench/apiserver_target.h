// Where a benchmark program reaches the kube-apiserver, and as whom.
#ifndef INFORMERD_BENCH_APISERVER_TARGET_H_
#define INFORMERD_BENCH_APISERVER_TARGET_H_

#include <string>

namespace informerd::bench {

struct ApiserverTarget {
  std::string url;         // https://127.0.0.1:26443
  std::string ca_file;
  std::string token;
  std::string namespace_;  // the namespace the program works in
};

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_APISERVER_TARGET_H_
