#include "server/admin/field_mask_collector.h"

#include <string>
#include <utility>

#include "server/cache/object.h"

namespace informerd::admin {
namespace {

void AddGauge(std::vector<prometheus::MetricFamily>* out, std::string name, std::string help,
              double value) {
  prometheus::MetricFamily& family = out->emplace_back();
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = prometheus::MetricType::Gauge;
  family.metric.emplace_back().gauge.value = value;
}

}  // namespace

std::vector<prometheus::MetricFamily> CollectFieldMaskMetrics(
    const cache::FieldMaskRegistry& masks) {
  std::vector<prometheus::MetricFamily> families;
  AddGauge(&families, "informerd_field_masks",
           "Distinct field masks interned: asked for by callers and not dropped yet.",
           static_cast<double>(masks.size()));
  AddGauge(&families, "informerd_field_masks_max",
           "The most distinct field masks kept; a new one while all are in use by open calls is "
           "refused (RESOURCE_EXHAUSTED).",
           static_cast<double>(masks.max_masks()));
  AddGauge(&families, "informerd_field_mask_bytes",
           "Bytes held by the masked forms of objects (at most 4 per object version), JSON and "
           "protobuf.",
           static_cast<double>(cache::Object::MaskedFormBytes()));
  return families;
}

}  // namespace informerd::admin
