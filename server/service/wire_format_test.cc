#include "server/service/wire_format.h"

#include <grpcpp/support/proto_buffer_reader.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <gtest/gtest.h>

#include "server/cache/test_objects.h"

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
      WatchEventBuffer(cache::EventType::kAdded, *object, 7, false, v1::PROJECTION_METADATA);
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(buffer.Dump(&slices).ok());
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_EQ(slices[1].begin(), object->MetadataOnly().wire().begin());
  v1::WatchEvent event = Parse<v1::WatchEvent>(buffer);
  EXPECT_EQ(event.object().json(), std::string(object->MetadataOnly().json()));
  EXPECT_EQ(event.object().json().find("\"data\""), std::string::npos);
  v1::ListResponse list = Parse<v1::ListResponse>(
      ListResponseBuffer({object}, 8, "", v1::PROJECTION_METADATA));
  ASSERT_EQ(list.items_size(), 1);
  EXPECT_EQ(list.items(0).json(), event.object().json());
  v1::GetResponse get = Parse<v1::GetResponse>(GetResponseBuffer(*object, 8, v1::PROJECTION_METADATA));
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
