// kubectl's table columns for an object, by resource: NAMESPACE (with -A),
// NAME, the type's own columns as the API server's printers give them to
// `kubectl get`, and AGE; the extra columns of -o wide. Built-in types with
// their own columns: pods, configmaps, secrets, namespaces, services, nodes
// and deployments.apps. Any other resource: NAME AGE.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_COLUMNS_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_COLUMNS_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace informerctl {

struct TableOptions {
  bool with_namespace = false;
  bool wide = false;
  // AGE and other durations are measured up to now.
  absl::Time now;
};

std::vector<std::string> TableHeader(const informerd::v1::ResourceName& resource,
                                     const TableOptions& options);

// One cell per header column. NAMESPACE and NAME come from the object's
// routing fields; the other cells from its JSON, which when unparsable
// leaves them empty and AGE "<unknown>".
std::vector<std::string> TableRow(const informerd::v1::ResourceName& resource,
                                  const informerd::v1::Object& object,
                                  const TableOptions& options);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_COLUMNS_H_
