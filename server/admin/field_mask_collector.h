// CollectFieldMaskMetrics: the process's field masks (cache::FieldMaskRegistry
// and the masked forms objects keep), read at scrape time.
#ifndef INFORMERD_SERVER_ADMIN_FIELD_MASK_COLLECTOR_H_
#define INFORMERD_SERVER_ADMIN_FIELD_MASK_COLLECTOR_H_

#include <vector>

#include <prometheus/metric_family.h>

#include "server/cache/field_mask_registry.h"

namespace informerd::admin {

// informerd_field_masks, informerd_field_masks_max and
// informerd_field_mask_bytes, gauges without labels.
std::vector<prometheus::MetricFamily> CollectFieldMaskMetrics(
    const cache::FieldMaskRegistry& masks);

}  // namespace informerd::admin

#endif  // INFORMERD_SERVER_ADMIN_FIELD_MASK_COLLECTOR_H_
