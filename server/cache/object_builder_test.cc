#include "server/cache/object_builder.h"

#include <gtest/gtest.h>

#include "informerd/v1/informerd.pb.h"
#include "rapidjson/document.h"
#include "server/cache/test_objects.h"

namespace informerd::cache {
namespace {

absl::StatusOr<ObjectPtr> Build(const std::string& json, ObjectSchema schema = {}) {
  NormalizeSchema(&schema);
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  if (document.HasParseError()) return absl::InvalidArgumentError("parse");
  return BuildObject(document, schema);
}

TEST(ObjectBuilder, ExtractsMetadataAndStripsManagedFields) {
  TestObjectSpec spec{.namespace_ = "ns", .name = "a", .resource_version = 42,
                      .labels = {{"z", "1"}, {"app", "web"}}};
  absl::StatusOr<ObjectPtr> object = Build(TestObjectJson(spec));
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ((*object)->key(), "ns/a");
  EXPECT_EQ((*object)->resource_version_number(), 42u);
  EXPECT_EQ((*object)->uid(), "uid-a");
  ASSERT_EQ((*object)->labels().size(), 2u);
  EXPECT_EQ((*object)->labels()[0].first, "app");
  EXPECT_EQ((*object)->json().find("managedFields"), std::string_view::npos);
  EXPECT_NE((*object)->json().find("\"name\":\"a\""), std::string_view::npos);
}

TEST(ObjectBuilder, FillsApiVersionAndKindFirstWhenTheObjectLacksThem) {
  ObjectSchema schema;
  schema.api_version = "apps/v1";
  schema.kind = "Deployment";
  absl::StatusOr<ObjectPtr> object =
      Build(R"({"metadata":{"name":"a","resourceVersion":"3"},"spec":{"replicas":1}})", schema);
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ((*object)->json(),
            R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"a",)"
            R"("resourceVersion":"3"},"spec":{"replicas":1}})");
}

TEST(ObjectBuilder, KeepsTheObjectsOwnApiVersionAndKind) {
  ObjectSchema schema;
  schema.api_version = "v1";
  schema.kind = "ConfigMap";
  absl::StatusOr<ObjectPtr> object = Build(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"3"}})",
      schema);
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ((*object)->json(),
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"3"}})");
}

TEST(ObjectBuilder, MetadataOnlyKeepsApiVersionKindAndMetadata) {
  ObjectSchema schema;
  schema.api_version = "v1";
  schema.kind = "Pod";
  schema.field_indexes = {"spec.nodeName"};
  absl::StatusOr<ObjectPtr> object =
      Build(TestObjectJson({.namespace_ = "ns", .name = "a", .resource_version = 5,
                            .labels = {{"k", "v"}}, .node_name = "n1", .data = "x"}),
            schema);
  ASSERT_TRUE(object.ok()) << object.status();
  const Object& projected = (*object)->MetadataOnly();
  EXPECT_EQ(&projected, &(*object)->MetadataOnly());  // Built once.
  rapidjson::Document full, partial;
  full.Parse((*object)->json().data(), (*object)->json().size());
  partial.Parse(projected.json().data(), projected.json().size());
  ASSERT_TRUE(partial.IsObject());
  EXPECT_EQ(partial.MemberCount(), 3u);
  EXPECT_EQ(partial["kind"], full["kind"]);
  EXPECT_EQ(partial["apiVersion"], full["apiVersion"]);
  EXPECT_EQ(partial["metadata"], full["metadata"]);
  EXPECT_EQ(projected.key(), "ns/a");
  EXPECT_EQ(projected.resource_version_number(), 5u);
  EXPECT_EQ(projected.labels(), (*object)->labels());
  EXPECT_EQ(projected.FieldValue("spec.nodeName"), "n1");
  v1::Object message;
  ASSERT_TRUE(message.ParseFromArray(projected.wire().begin(),
                                     static_cast<int>(projected.wire().size())));
  EXPECT_EQ(message.json(), std::string(projected.json()));
  EXPECT_EQ(message.labels().at("k"), "v");
  EXPECT_GT((*object)->ApproximateBytes(), projected.ApproximateBytes());
}

TEST(ObjectBuilder, KeepsManagedFieldsWhenAsked) {
  ObjectSchema schema;
  schema.strip_managed_fields = false;
  absl::StatusOr<ObjectPtr> object = Build(TestObjectJson({.name = "a"}), schema);
  ASSERT_TRUE(object.ok());
  EXPECT_NE((*object)->json().find("managedFields"), std::string_view::npos);
}

TEST(ObjectBuilder, WireIsTheProtoMessageAndJsonIsInsideIt) {
  absl::StatusOr<ObjectPtr> object =
      Build(TestObjectJson({.namespace_ = "ns", .name = "a", .labels = {{"k", "v"}}}));
  ASSERT_TRUE(object.ok());
  const grpc::Slice& wire = (*object)->wire();
  v1::Object message;
  ASSERT_TRUE(message.ParseFromArray(wire.begin(), static_cast<int>(wire.size())));
  EXPECT_EQ(message.json(), std::string((*object)->json()));
  EXPECT_EQ(message.name(), "a");
  EXPECT_EQ(message.namespace_(), "ns");
  EXPECT_EQ(message.labels().at("k"), "v");
}

TEST(ObjectBuilder, FieldIndexesAndDroppedFields) {
  ObjectSchema schema;
  schema.field_indexes = {"spec.nodeName", "spec.missing"};
  schema.drop_fields = {"data"};
  absl::StatusOr<ObjectPtr> object = Build(TestObjectJson({.name = "a", .node_name = "n1", .data = "x"}), schema);
  ASSERT_TRUE(object.ok());
  EXPECT_EQ((*object)->FieldValue("spec.nodeName").value(), "n1");
  EXPECT_EQ((*object)->FieldValue("spec.missing").value(), "");
  EXPECT_EQ((*object)->FieldValue("metadata.name").value(), "a");
  EXPECT_FALSE((*object)->FieldValue("spec.other").has_value());
  EXPECT_EQ((*object)->json().find("\"data\""), std::string_view::npos);
}

TEST(ObjectBuilder, RejectsMalformedMetadataNamingTheField) {
  struct Case {
    const char* json;
    const char* field;
  } cases[] = {
      {"[]", "is not a JSON object"},
      {"{}", "metadata"},
      {"{\"metadata\":5}", "metadata"},
      {"{\"metadata\":{\"resourceVersion\":\"1\"}}", "metadata.name"},
      {"{\"metadata\":{\"name\":\"a\"}}", "metadata.resourceVersion"},
      {"{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"x1\"}}", "metadata.resourceVersion"},
      {"{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\",\"labels\":{\"k\":1}}}", "metadata.labels"},
      // Found by object_builder_fuzzer: a label key twice was cached with both
      // values, though the wire's labels map and JSON clients keep one.
      {"{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\",\"labels\":{\"k\":\"1\",\"k\":\"2\"}}}",
       "metadata.labels"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ObjectPtr> object = Build(c.json);
    ASSERT_FALSE(object.ok()) << c.json;
    EXPECT_EQ(object.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(object.status().message().find(c.field), std::string_view::npos)
        << object.status() << " for " << c.json;
  }
}

// Found by object_builder_fuzzer: a name or label that is not UTF-8 was
// cached, and its informerd.v1.Object then failed to decode (proto3 string
// fields must be UTF-8), failing every List page and Watch carrying it.
TEST(ObjectBuilder, RejectsMetadataThatIsNotUtf8) {
  const std::string invalid[] = {
      "\xff", "a\xc0\xaf" "b" /* overlong '/' */, "\xed\xa0\x80" /* surrogate */,
      "\xf4\x90\x80\x80" /* past U+10FFFF */, "\xe2\x82" /* cut short */};
  for (const std::string& bad : invalid) {
    const std::string cases[] = {
        R"({"metadata":{"name":")" + bad + R"(","resourceVersion":"1"}})",
        R"({"metadata":{"name":"a","namespace":")" + bad + R"(","resourceVersion":"1"}})",
        R"({"metadata":{"name":"a","uid":")" + bad + R"(","resourceVersion":"1"}})",
        R"({"metadata":{"name":"a","resourceVersion":"1","labels":{"k":")" + bad + R"("}}})",
        R"({"metadata":{"name":"a","resourceVersion":"1","labels":{")" + bad + R"(":"v"}}})",
    };
    for (const std::string& json : cases) {
      absl::StatusOr<ObjectPtr> object = Build(json);
      EXPECT_EQ(object.status().code(), absl::StatusCode::kInvalidArgument) << json;
      // The bytes are not echoed into the log line the rejection becomes.
      EXPECT_EQ(object.status().message().find(bad), std::string_view::npos);
    }
  }
  // Well-formed UTF-8 beyond ASCII is kept, and decodes.
  absl::StatusOr<ObjectPtr> object = Build(
      R"({"metadata":{"name":"caf\u00e9-\u20ac-\ud83d\ude00","resourceVersion":"1",)"
      R"("labels":{"k":"\u00e9"}}})");
  ASSERT_TRUE(object.ok()) << object.status();
  v1::Object message;
  ASSERT_TRUE(message.ParseFromArray((*object)->wire().begin(),
                                     static_cast<int>((*object)->wire().size())));
  EXPECT_EQ(message.name(), "caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80");
}

// Found by object_builder_fuzzer: with a name twice in an object (valid
// JSON; a client reads the last), only the first was dropped, so a field the
// schema drops (or managedFields) was still cached and served.
TEST(ObjectBuilder, DropsEveryDuplicateOfADroppedField) {
  ObjectSchema schema;
  schema.drop_fields = {"spec.secret"};
  absl::StatusOr<ObjectPtr> object = Build(
      R"({"metadata":{"name":"a","managedFields":[1],"resourceVersion":"1","managedFields":[2]},)"
      R"("spec":{"secret":"1","k":1,"secret":"2"},"status":{},"spec":{"secret":"3","x":0}})",
      schema);
  ASSERT_TRUE(object.ok()) << object.status();
  // The other members keep their order.
  EXPECT_EQ((*object)->json(),
            R"({"metadata":{"name":"a","resourceVersion":"1"},"spec":{"k":1},"status":{},)"
            R"("spec":{"x":0}})");
}

// Issue 26: a root sent an object with two top-level "metadata" members; the
// cache keyed it by the first while Go clients read the last.
TEST(ObjectBuilder, RejectsAMemberThatDecidesIdentityGivenTwice) {
  struct Case {
    const char* json;
    const char* error;
  } cases[] = {
      {R"({"metadata":{"name":"a","resourceVersion":"1"},"metadata":{"name":"b","resourceVersion":"2"}})",
       "object metadata: is given twice"},
      {R"({"kind":"Pod","metadata":{"name":"a","resourceVersion":"1"},"kind":"Secret"})",
       "object kind: is given twice"},
      {R"({"apiVersion":"v1","apiVersion":"v2","metadata":{"name":"a","resourceVersion":"1"}})",
       "object apiVersion: is given twice"},
      {R"({"metadata":{"name":"a","resourceVersion":"1","name":"b"}})",
       "object metadata.name: is given twice"},
      {R"({"metadata":{"name":"a","namespace":"x","resourceVersion":"1","namespace":"y"}})",
       "object metadata.namespace: is given twice"},
      {R"({"metadata":{"name":"a","uid":"1","uid":"2","resourceVersion":"1"}})",
       "object metadata.uid: is given twice"},
      {R"({"metadata":{"name":"a","resourceVersion":"1","resourceVersion":"9"}})",
       "object metadata.resourceVersion: is given twice"},
      {R"({"metadata":{"name":"a","labels":{},"resourceVersion":"1","labels":{"k":"v"}}})",
       "object metadata.labels: is given twice"},
      {R"({"metadata":{"name":"a","resourceVersion":"1"},"spec":{"nodeName":"n1"},"spec":{}})",
       "object spec: is given twice"},
      {R"({"metadata":{"name":"a","resourceVersion":"1"},"spec":{"nodeName":"n1","nodeName":"n2"}})",
       "object spec.nodeName: is given twice"},
  };
  ObjectSchema schema;
  schema.field_indexes = {"spec.nodeName"};
  for (const Case& c : cases) {
    absl::StatusOr<ObjectPtr> object = Build(c.json, schema);
    ASSERT_FALSE(object.ok()) << c.json;
    EXPECT_EQ(object.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(object.status().message(), c.error) << c.json;
  }
  // Members that decide nothing may repeat, as JSON allows.
  EXPECT_TRUE(Build(R"({"metadata":{"name":"a","resourceVersion":"1","annotations":{},)"
                    R"("annotations":{}},"data":{},"data":{}})",
                    schema)
                  .ok());
}

TEST(ObjectBuilder, SharedFromThisGivesTheOwningPointer) {
  ObjectPtr object = MakeTestObject({.name = "a"});
  EXPECT_EQ(object->shared_from_this().get(), object.get());
  EXPECT_EQ(object.use_count(), 1);
}

}  // namespace
}  // namespace informerd::cache

namespace informerd::cache {
namespace {

TEST(ObjectBuilder, WithResourceVersionRestampsJsonAndMetadataOnly) {
  ObjectSchema schema;
  schema.field_indexes = {"spec.nodeName"};
  ObjectPtr object = MakeTestObject({.name = "a", .resource_version = 5, .labels = {{"k", "v"}}, .node_name = "n"}, schema);
  ObjectPtr restamped = WithResourceVersion(*object, 9);
  EXPECT_EQ(restamped->resource_version(), "9");
  EXPECT_EQ(restamped->resource_version_number(), 9u);
  EXPECT_NE(restamped->json().find("\"resourceVersion\":\"9\""), std::string_view::npos);
  EXPECT_EQ(restamped->labels(), object->labels());
  EXPECT_EQ(restamped->FieldValue("spec.nodeName").value(), "n");
  v1::Object message;
  ASSERT_TRUE(message.ParseFromArray(restamped->wire().begin(), static_cast<int>(restamped->wire().size())));
  EXPECT_EQ(message.resource_version(), "9");
}

}  // namespace
}  // namespace informerd::cache
