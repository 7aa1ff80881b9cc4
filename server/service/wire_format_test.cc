#include "server/service/wire_format.h"

#include <grpcpp/support/proto_buffer_reader.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <gtest/gtest.h>

#include "server/cache/field_mask_registry.h"
#include "server/cache/test_objects.h"
#include "server/kube_proto/kube_protobuf.h"

namespace informerd::service {
namespace {

template <typename Message>
Message Parse(grpc::ByteBuffer buffer) {
  Message message;
  EXPECT_TRUE(grpc::SerializationTraits<Message>::Deserialize(&buffer, &message).ok());
  return message;
}

TEST(WireFormat, WatchEventSharesTheObjectBytes) {
  cache::ObjectPtr object = cache::MakeTestObject({.namespace_ = "ns", .name = "a", .resource_version = 7});
  grpc::ByteBuffer buffer = WatchEventBuffer(cache::EventType::kDeleted, *object, 9, true);
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(buffer.Dump(&slices).ok());
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_EQ(slices[1].begin(), object->wire().begin());  // Referenced, not copied.
  v1::WatchEvent event = Parse<v1::WatchEvent>(buffer);
  EXPECT_EQ(event.type(), v1::WatchEvent::DELETED);
  EXPECT_EQ(event.resource_version(), "9");
  EXPECT_TRUE(event.final_state_unknown());
  EXPECT_EQ(event.object().name(), "a");
  EXPECT_EQ(event.object().json(), std::string(object->json()));
}

TEST(WireFormat, MetadataProjectionSharesTheProjectedBytes) {
  cache::ObjectPtr object =
      cache::MakeTestObject({.namespace_ = "ns", .name = "a", .resource_version = 7, .data = "x"});
  grpc::ByteBuffer buffer =
      WatchEventBuffer(cache::EventType::kAdded, *object, 7, false, {v1::PROJECTION_METADATA});
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(buffer.Dump(&slices).ok());
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_EQ(slices[1].begin(), object->MetadataOnly().wire().begin());
  v1::WatchEvent event = Parse<v1::WatchEvent>(buffer);
  EXPECT_EQ(event.object().json(), std::string(object->MetadataOnly().json()));
  EXPECT_EQ(event.object().json().find("\"data\""), std::string::npos);
  v1::ListResponse list = Parse<v1::ListResponse>(
      ListResponseBuffer({object}, 8, "", {v1::PROJECTION_METADATA}));
  ASSERT_EQ(list.items_size(), 1);
  EXPECT_EQ(list.items(0).json(), event.object().json());
  v1::GetResponse get = Parse<v1::GetResponse>(GetResponseBuffer(*object, 8, {v1::PROJECTION_METADATA}));
  EXPECT_EQ(get.object().json(), event.object().json());
}

TEST(WireFormat, Bookmark) {
  v1::WatchEvent event = Parse<v1::WatchEvent>(BookmarkBuffer(12, true));
  EXPECT_EQ(event.type(), v1::WatchEvent::BOOKMARK);
  EXPECT_EQ(event.resource_version(), "12");
  EXPECT_EQ(event.object().resource_version(), "12");
  EXPECT_TRUE(event.initial_events_end());
}

TEST(WireFormat, ListAndGetResponses) {
  std::vector<cache::ObjectPtr> items = {cache::MakeTestObject({.name = "a"}),
                                         cache::MakeTestObject({.name = "b"})};
  v1::ListResponse list = Parse<v1::ListResponse>(ListResponseBuffer(items, 5, "tok"));
  ASSERT_EQ(list.items_size(), 2);
  EXPECT_EQ(list.items(1).name(), "b");
  EXPECT_EQ(list.resource_version(), "5");
  EXPECT_EQ(list.continue_token(), "tok");
  v1::ListResponse empty = Parse<v1::ListResponse>(ListResponseBuffer({}, 5, ""));
  EXPECT_EQ(empty.items_size(), 0);
  v1::GetResponse get = Parse<v1::GetResponse>(GetResponseBuffer(*items[0], 6));
  EXPECT_EQ(get.object().name(), "a");
  EXPECT_EQ(get.resource_version(), "6");
}

}  // namespace
}  // namespace informerd::service

namespace informerd::service {
namespace {

TEST(WireFormat, ProtobufEncodingIsBuiltOnceAndShared) {
  cache::Object::Metadata metadata{.namespace_ = "ns", .name = "a", .uid = "u", .resource_version = "7"};
  metadata.labels = {{"app", "x"}};
  cache::ObjectPtr object = cache::Object::Create(
      metadata, 7, {},
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"u",)"
      R"("resourceVersion":"7","labels":{"app":"x"}},"data":{"k":"v"}})");
  grpc::ByteBuffer first =
      WatchEventBuffer(cache::EventType::kAdded, *object, 7, false, {v1::PROJECTION_FULL, v1::ENCODING_PROTOBUF});
  grpc::ByteBuffer second =
      WatchEventBuffer(cache::EventType::kAdded, *object, 7, false, {v1::PROJECTION_FULL, v1::ENCODING_PROTOBUF});
  std::vector<grpc::Slice> a, b;
  ASSERT_TRUE(first.Dump(&a).ok());
  ASSERT_TRUE(second.Dump(&b).ok());
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].begin(), b[1].begin());  // One encoding, referenced by both.
  v1::WatchEvent event = Parse<v1::WatchEvent>(first);
  EXPECT_TRUE(event.object().json().empty());
  EXPECT_EQ(event.object().protobuf().substr(0, 4), std::string("k8s\0", 4));
  EXPECT_NE(event.object().protobuf().find("ConfigMap"), std::string::npos);
  EXPECT_EQ(event.object().name(), "a");
  EXPECT_EQ(event.object().labels().at("app"), "x");
  v1::ListResponse list =
      Parse<v1::ListResponse>(ListResponseBuffer({object}, 8, "", {v1::PROJECTION_FULL, v1::ENCODING_PROTOBUF}));
  ASSERT_EQ(list.items_size(), 1);
  EXPECT_EQ(list.items(0).protobuf(), event.object().protobuf());
  v1::GetResponse get =
      Parse<v1::GetResponse>(GetResponseBuffer(*object, 8, {v1::PROJECTION_FULL, v1::ENCODING_PROTOBUF}));
  EXPECT_EQ(get.object().protobuf(), event.object().protobuf());
}

TEST(WireFormat, ObjectsWithoutAProtobufFormAreJson) {
  // The test objects are ConfigMaps with a spec.nodeName, which ConfigMaps
  // lack: the schema refuses it, so JSON it is.
  cache::ObjectPtr misfit = cache::MakeTestObject({.namespace_ = "ns", .name = "a", .node_name = "n"});
  v1::GetResponse get =
      Parse<v1::GetResponse>(GetResponseBuffer(*misfit, 8, {v1::PROJECTION_FULL, v1::ENCODING_PROTOBUF}));
  EXPECT_TRUE(get.object().protobuf().empty());
  EXPECT_EQ(get.object().json(), std::string(misfit->json()));
  // The metadata-only form stays JSON.
  cache::ObjectPtr object = cache::MakeTestObject({.namespace_ = "ns", .name = "b", .data = "x"});
  get = Parse<v1::GetResponse>(GetResponseBuffer(*object, 8, {v1::PROJECTION_METADATA, v1::ENCODING_PROTOBUF}));
  EXPECT_TRUE(get.object().protobuf().empty());
  EXPECT_EQ(get.object().json(), std::string(object->MetadataOnly().json()));
}

TEST(WireFormat, MaskedFormsAreSharedAndEncodedInProtobuf) {
  cache::FieldMaskRegistry registry;
  cache::Object::Metadata metadata{.namespace_ = "ns", .name = "a", .uid = "u", .resource_version = "7"};
  cache::ObjectPtr object = cache::Object::Create(
      metadata, 7, {},
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"u",)"
      R"("resourceVersion":"7","labels":{"app":"x"}},"data":{"k":"v","l":"w"}})");
  absl::StatusOr<cache::FieldMask> parsed = cache::FieldMask::Parse({"data.k"});
  ASSERT_TRUE(parsed.ok());
  auto mask = registry.Intern(*parsed);
  ASSERT_TRUE(mask.ok());
  ReplyForm form{v1::PROJECTION_FULL, v1::ENCODING_JSON, *mask};
  grpc::ByteBuffer first = WatchEventBuffer(cache::EventType::kModified, *object, 7, false, form);
  grpc::ByteBuffer second = GetResponseBuffer(*object, 8, form);
  std::vector<grpc::Slice> a, b;
  ASSERT_TRUE(first.Dump(&a).ok());
  ASSERT_TRUE(second.Dump(&b).ok());
  EXPECT_EQ(a[1].begin(), b[1].begin());  // one masked form, referenced by both
  v1::WatchEvent event = Parse<v1::WatchEvent>(first);
  EXPECT_EQ(event.object().json(),
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns",)"
            R"("uid":"u","resourceVersion":"7"},"data":{"k":"v"}})");
  EXPECT_EQ(event.object().name(), "a");
  form.encoding = v1::ENCODING_PROTOBUF;
  v1::GetResponse get = Parse<v1::GetResponse>(GetResponseBuffer(*object, 8, form));
  EXPECT_TRUE(get.object().json().empty());
  absl::StatusOr<std::string> expected = kube_proto::KubeProtobuf::Default().Encode(event.object().json());
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_EQ(get.object().protobuf(), *expected);
  // PROJECTION_METADATA with a mask: the whole of metadata, and the mask.
  absl::StatusOr<cache::FieldMask> with_metadata = cache::FieldMask::Parse({"data.l"}, true);
  ASSERT_TRUE(with_metadata.ok());
  ReplyForm metadata_form{v1::PROJECTION_METADATA, v1::ENCODING_JSON,
                          *registry.Intern(*with_metadata)};
  get = Parse<v1::GetResponse>(GetResponseBuffer(*object, 8, metadata_form));
  EXPECT_EQ(get.object().json(),
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns",)"
            R"("uid":"u","resourceVersion":"7","labels":{"app":"x"}},"data":{"l":"w"}})");
}

}  // namespace
}  // namespace informerd::service
