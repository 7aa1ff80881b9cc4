// CollectResourceMetrics: per-resource informer and reflector figures,
// read at scrape time so the serving path never updates them.
#ifndef INFORMERD_SERVER_ADMIN_RESOURCE_COLLECTOR_H_
#define INFORMERD_SERVER_ADMIN_RESOURCE_COLLECTOR_H_

#include <vector>

#include <prometheus/metric_family.h>

#include "server/service/served_resource.h"

namespace informerd::admin {

std::vector<prometheus::MetricFamily> CollectResourceMetrics(
    const service::ResourceRegistry& registry);

}  // namespace informerd::admin

#endif  // INFORMERD_SERVER_ADMIN_RESOURCE_COLLECTOR_H_
