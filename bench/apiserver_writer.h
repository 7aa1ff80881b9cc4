// ApiserverWriter: the single writer of the fan-out benchmark. It creates a
// few ~10 KB ConfigMaps in a namespace, then patches them round-robin at a
// fixed rate through the kube-apiserver, recording for every write the
// resourceVersion it produced and when its response arrived.
//
// Thread safety: Run blocks its caller; Writes may be called once Run has
// returned.
#ifndef INFORMERD_BENCH_APISERVER_WRITER_H_
#define INFORMERD_BENCH_APISERVER_WRITER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "bench/apiserver_target.h"

namespace httplib {
class Client;
}

namespace informerd::bench {

struct Write {
  uint64_t resource_version = 0;
  int64_t response_ns = 0;  // steady clock, when the response arrived
};

class ApiserverWriter {
 public:
  // Creates target.namespace_ if missing (in Prepare).
  ApiserverWriter(ApiserverTarget target, size_t objects, size_t object_bytes);
  ~ApiserverWriter();

  // Creates the namespace (if missing) and the ConfigMaps.
  absl::Status Prepare();

  // Patches at `rate` writes per second for `duration`; writes made while
  // `*recording` is true are kept. Stops early on the first failed write.
  absl::Status Run(double rate, absl::Duration duration, const std::atomic<bool>* recording);

  // Run with every write kept; a failure is printed to stderr. True when
  // every write succeeded.
  bool RunRecorded(double rate, absl::Duration duration);

  const std::vector<Write>& writes() const { return writes_; }

 private:
  absl::Status Patch(uint64_t sequence, Write* write);

  const ApiserverTarget target_;
  const size_t objects_;
  const size_t object_bytes_;
  std::unique_ptr<httplib::Client> client_;
  std::vector<Write> writes_;
  // Payloads are "<run id>-<sequence>", the sequence continuing across Run
  // calls, so no patch repeats an earlier payload, also of an earlier
  // process on the same namespace: a patch that changes nothing produces no
  // event and returns the object's old resourceVersion.
  const std::string run_id_;
  uint64_t sequence_ = 0;
};

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_APISERVER_WRITER_H_
