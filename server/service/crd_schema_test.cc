#include "server/service/crd_schema.h"

#include <gtest/gtest.h>

namespace informerd::service {
namespace {

constexpr char kCrd[] = R"({"kind":"CustomResourceDefinition","spec":{"versions":[
  {"name":"v1alpha1","schema":{"openAPIV3Schema":{"type":"object"}}},
  {"name":"v1","schema":{"openAPIV3Schema":{"type":"object","properties":{
    "spec":{"type":"object","properties":{
      "size":{"type":"integer"},
      "items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},
      "labels":{"type":"object","additionalProperties":{"type":"string"}},
      "nested":{"type":"array","items":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}}}}}}},
    "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
    "free":{"type":"object","additionalProperties":true}}}}}]}})";

TEST(CrdSchema, PathsFollowPropertiesArraysMapsAndUnknownFields) {
  auto schema = CrdSchema::FromCrd(kCrd, "v1", "widgets.example.com");
  ASSERT_TRUE(schema.ok()) << schema.status();
  for (const char* path : {"spec", "spec.size", "spec.items.name", "spec.labels.app", "spec.nested.x",
                           "extra.anything.below", "free.x.y", "metadata.labels", "apiVersion", "kind"}) {
    EXPECT_TRUE((*schema)->CheckPath(path).ok()) << path << ": " << (*schema)->CheckPath(path);
  }
  EXPECT_EQ((*schema)->CheckPath("spec.colr").message(),
            "no field \"colr\" in the schema of widgets.example.com at spec");
  EXPECT_EQ((*schema)->CheckPath("status").message(),
            "no field \"status\" in the schema of widgets.example.com");
  EXPECT_EQ((*schema)->CheckPath("spec.size.x").message(),
            "no field \"x\" in the schema of widgets.example.com at spec.size");
  EXPECT_EQ((*schema)->CheckPath("spec.labels.app.x").code(), absl::StatusCode::kInvalidArgument);
}

TEST(CrdSchema, AVersionWithoutASchemaOrNotACrd) {
  EXPECT_EQ(CrdSchema::FromCrd(kCrd, "v2", "w").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(CrdSchema::FromCrd("[1]", "v1", "w").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CrdSchema::FromCrd("{\"spec\":{}}", "v1", "w").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CrdSchema::FromCrd("{", "v1", "w").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace informerd::service
