#include "server/kube_proto/kube_protobuf.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"

namespace informerd::kube_proto {
namespace {

// Length-delimited field.
std::string L(int number, std::string_view bytes) {
  std::string out(1, static_cast<char>((number << 3) | 2));
  out.push_back(static_cast<char>(bytes.size()));
  return out + std::string(bytes);
}
std::string V(int number, int value) {
  std::string out(1, static_cast<char>(number << 3));
  out.push_back(static_cast<char>(value));
  return out;
}

std::string Envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
  return std::string(kMagic) + L(1, L(1, api_version) + L(2, kind)) + L(2, raw) + L(3, "") + L(4, "");
}

TEST(KubeProtobufTest, ConfigMapFieldsInNumberOrderMapsSorted) {
  auto encoded = KubeProtobuf::Default().Encode(
      R"({"apiVersion":"v1","kind":"ConfigMap","data":{"b":"2","a":"1"},)"
      R"("metadata":{"name":"x","creationTimestamp":"2024-01-02T03:04:05Z"},"binaryData":{"k":"AAE="}})");
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  // ObjectMeta: name=1, creationTimestamp=8 {seconds=1 (1704164645), nanos=2},
  // and the fields Go writes at their zero value: generateName, namespace,
  // selfLink, uid, resourceVersion (2-6), generation (7).
  std::string time = absl::StrCat("\x08\xa5\xfa\xcd\xac\x06", V(2, 0));
  std::string meta = absl::StrCat(L(1, "x"), L(2, ""), L(3, ""), L(4, ""), L(5, ""), L(6, ""), V(7, 0),
                                  L(8, time));
  std::string raw = absl::StrCat(L(1, meta), L(2, absl::StrCat(L(1, "a"), L(2, "1"))),
                                 L(2, absl::StrCat(L(1, "b"), L(2, "2"))),
                                 L(3, absl::StrCat(L(1, "k"), L(2, std::string("\0\1", 2)))));
  EXPECT_EQ(*encoded, Envelope("v1", "ConfigMap", raw));
}

TEST(KubeProtobufTest, IntOrStringAndInlinedFields) {
  // Probe inlines ProbeHandler (field 1, "handler"); httpGet.port is an IntOrString.
  auto encoded = KubeProtobuf::Default().Encode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{},"spec":{"containers":[{"name":"c",)"
      R"("livenessProbe":{"httpGet":{"port":"http"},"periodSeconds":3}}]}})");
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  std::string port = absl::StrCat(V(1, 1), V(2, 0), L(3, "http"));
  // HTTPGetAction: path=1, port=2, host=3, scheme=4 (written when empty).
  std::string http_get = absl::StrCat(L(1, ""), L(2, port), L(3, ""), L(4, ""));
  std::string handler = L(2, http_get);  // ProbeHandler.httpGet = 2
  // Probe: handler=1, initialDelaySeconds..failureThreshold = 2..6.
  std::string probe = absl::StrCat(L(1, handler), V(2, 0), V(3, 0), V(4, 3), V(5, 0), V(6, 0));
  EXPECT_NE(encoded->find(L(10, probe)), std::string::npos);  // Container.livenessProbe = 10
}

TEST(KubeProtobufTest, UnknownFieldIsAnErrorNamingIt) {
  auto encoded = KubeProtobuf::Default().Encode(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","nameX":"y"}})");
  ASSERT_EQ(encoded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(encoded.status().message().find("metadata.nameX"), std::string::npos) << encoded.status();
}

TEST(KubeProtobufTest, WrongJsonTypeIsAnError) {
  auto encoded = KubeProtobuf::Default().Encode(
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{},"spec":{"replicas":"3"}})");
  ASSERT_EQ(encoded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(encoded.status().message().find("spec.replicas"), std::string::npos) << encoded.status();
}

TEST(KubeProtobufTest, CustomResourcesHaveNoSchema) {
  EXPECT_EQ(KubeProtobuf::Default()
                .Encode(R"({"apiVersion":"apps.example.com/v1","kind":"Deployment","metadata":{}})")
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(KubeProtobuf::Default().Knows("events.k8s.io/v1", "Event"));
  EXPECT_TRUE(KubeProtobuf::Default().Knows("apps/v1", "Deployment"));
  EXPECT_FALSE(KubeProtobuf::Default().Knows("v1", "ObjectReference"));
}

TEST(KubeProtobufTest, PodWithOneContainer) {
  std::string json = R"({"apiVersion":"v1","kind":"Pod","metadata":{},"spec":{"containers":[{"name":"c"}]}})";
  auto encoded = KubeProtobuf::Default().Encode(json);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
}

// A ControllerRevision whose data (a RawExtension) is `levels` arrays deep.
std::string RevisionNested(int levels) {
  return absl::StrCat(R"({"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{},"revision":1,"data":)",
                      std::string(levels, '['), std::string(levels, ']'), "}");
}

TEST(KubeProtobufTest, RawExtensionWithinTheDepthIsEncoded) {
  auto encoded = KubeProtobuf::Default().Encode(RevisionNested(KubeProtobuf::kMaxDepth - 2));
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_NE(encoded->find(std::string(KubeProtobuf::kMaxDepth - 2, '[')), std::string::npos);
}

// The raw JSON of a RawExtension (and FieldsV1) counts against the same
// depth as the messages around it.
TEST(KubeProtobufTest, RawExtensionNestedPastTheDepthIsAnErrorNamingIt) {
  auto encoded = KubeProtobuf::Default().Encode(RevisionNested(KubeProtobuf::kMaxDepth + 1));
  ASSERT_EQ(encoded.status().code(), absl::StatusCode::kInvalidArgument) << encoded.status();
  EXPECT_NE(encoded.status().message().find("data: nested too deeply"), std::string::npos)
      << encoded.status();
}

TEST(KubeProtobufTest, FieldsV1NestedPastTheDepthIsAnError) {
  std::string fields;
  for (int i = 0; i <= KubeProtobuf::kMaxDepth; ++i) fields += R"({"f:a":)";
  fields += "{}" + std::string(KubeProtobuf::kMaxDepth + 1, '}');
  auto encoded = KubeProtobuf::Default().Encode(absl::StrCat(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"managedFields":[{"manager":"m","fieldsV1":)",
      fields, "}]}}"));
  ASSERT_EQ(encoded.status().code(), absl::StatusCode::kInvalidArgument) << encoded.status();
  EXPECT_NE(encoded.status().message().find("fieldsV1: nested too deeply"), std::string::npos)
      << encoded.status();
}

// An already parsed document has had no parser's nesting bound: a million
// levels in a RawExtension must be refused, not recursed into until the
// stack runs out.
TEST(KubeProtobufTest, MillionLevelRawExtensionIsRefusedWithoutRecursingIntoIt) {
  rapidjson::Document document;
  auto& allocator = document.GetAllocator();
  rapidjson::Value nested(rapidjson::kArrayType);
  for (int i = 0; i < 1'000'000; ++i) {
    rapidjson::Value outer(rapidjson::kArrayType);
    outer.PushBack(nested, allocator);
    nested = outer;
  }
  document.SetObject();
  document.AddMember("apiVersion", "apps/v1", allocator);
  document.AddMember("kind", "ControllerRevision", allocator);
  document.AddMember("metadata", rapidjson::Value(rapidjson::kObjectType), allocator);
  document.AddMember("data", nested, allocator);
  auto encoded = KubeProtobuf::Default().Encode(document);
  ASSERT_EQ(encoded.status().code(), absl::StatusCode::kInvalidArgument) << encoded.status();
  EXPECT_NE(encoded.status().message().find("nested too deeply"), std::string::npos) << encoded.status();
}

TEST(KubeProtobufTest, FieldPathsAreCheckedAgainstTheSchema) {
  const KubeProtobuf& schemas = KubeProtobuf::Default();
  for (const char* path : {"spec.nodeName", "status.podIP", "metadata.labels", "metadata.labels.app",
                           "spec.containers.image", "spec.containers.resources.limits.cpu",
                           "metadata.ownerReferences.uid", "apiVersion", "kind", "metadata",
                           "metadata.managedFields.fieldsV1.anything.below", "status.conditions.type"}) {
    EXPECT_TRUE(schemas.CheckFieldPath("v1", "Pod", path).ok())
        << path << ": " << schemas.CheckFieldPath("v1", "Pod", path);
  }
  EXPECT_TRUE(schemas.CheckFieldPath("apps/v1", "Deployment", "spec.template.spec.containers.image").ok());
  EXPECT_TRUE(schemas.CheckFieldPath("v1", "Service", "spec.ports.port").ok());
  EXPECT_TRUE(schemas.CheckFieldPath("v1", "Service", "spec.ports.targetPort").ok());
  auto error = [&](const char* path) {
    absl::Status status = schemas.CheckFieldPath("v1", "Pod", path);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << path;
    return std::string(status.message());
  };
  EXPECT_EQ(error("spec.nodeNmae"), "no field \"nodeNmae\" in k8s.io.api.core.v1.PodSpec");
  EXPECT_EQ(error("spec.containers.imag"), "no field \"imag\" in k8s.io.api.core.v1.Container");
  EXPECT_EQ(error("spec.nodeName.x"), "nodeName is a string: no field \"x\" below it");
  EXPECT_EQ(error("metadata.creationTimestamp.seconds"),
            "creationTimestamp is a k8s.io.apimachinery.pkg.apis.meta.v1.Time (a JSON scalar): "
            "no field \"seconds\" below it");
  EXPECT_EQ(error("metadata.labels.app.x"), "app is a string: no field \"x\" below it");
  EXPECT_EQ(error("kind.x"), "kind is a string: no field \"x\" below it");
  EXPECT_EQ(schemas.CheckFieldPath("example.com/v1", "Widget", "spec").code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace informerd::kube_proto
