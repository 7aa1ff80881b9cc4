#include "server/admin/field_mask_collector.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "server/cache/field_mask.h"
#include "server/cache/field_mask_registry.h"
#include "server/cache/object.h"

namespace informerd::admin {
namespace {

std::map<std::string, double> Gauges(const cache::FieldMaskRegistry& masks) {
  std::map<std::string, double> gauges;
  for (const prometheus::MetricFamily& family : CollectFieldMaskMetrics(masks)) {
    EXPECT_EQ(family.type, prometheus::MetricType::Gauge) << family.name;
    EXPECT_FALSE(family.help.empty()) << family.name;
    EXPECT_EQ(family.metric.size(), 1u) << family.name;
    gauges[family.name] = family.metric.at(0).gauge.value;
  }
  return gauges;
}

TEST(FieldMaskCollector, CountsMasksAndTheBytesOfMaskedForms) {
  cache::FieldMaskRegistry masks(8);
  const double bytes_before = Gauges(masks)["informerd_field_mask_bytes"];
  EXPECT_EQ(Gauges(masks)["informerd_field_masks"], 0);
  EXPECT_EQ(Gauges(masks)["informerd_field_masks_max"], 8);
  auto mask = masks.Intern(*cache::FieldMask::Parse({"data"}));
  ASSERT_TRUE(mask.ok());
  cache::Object::Metadata metadata{.namespace_ = "ns", .name = "a", .uid = "u", .resource_version = "1"};
  cache::ObjectPtr object =
      cache::Object::Create(metadata, 1, {}, R"({"kind":"ConfigMap","data":{"k":"v"},"x":1})");
  std::shared_ptr<const cache::Object> masked = object->Masked(**mask);
  std::map<std::string, double> gauges = Gauges(masks);
  EXPECT_EQ(gauges["informerd_field_masks"], 1);
  EXPECT_EQ(gauges["informerd_field_mask_bytes"],
            bytes_before + static_cast<double>(masked->wire().size()));
}

}  // namespace
}  // namespace informerd::admin
