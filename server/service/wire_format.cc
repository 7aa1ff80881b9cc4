#include "server/service/wire_format.h"

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/kube_proto/kube_protobuf.h"

namespace informerd::service {
namespace {

// Protobuf wire types.
constexpr uint32_t kVarint = 0;
constexpr uint32_t kLengthDelimited = 2;

void PutVarint(std::string* out, uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void PutTag(std::string* out, uint32_t field, uint32_t wire_type) {
  PutVarint(out, (field << 3) | wire_type);
}

void PutString(std::string* out, uint32_t field, const std::string& value) {
  if (value.empty()) return;
  PutTag(out, field, kLengthDelimited);
  PutVarint(out, value.size());
  out->append(value);
}

void PutBool(std::string* out, uint32_t field, bool value) {
  if (!value) return;
  PutTag(out, field, kVarint);
  out->push_back(1);
}

v1::WatchEvent::Type WireType(cache::EventType type) {
  switch (type) {
    case cache::EventType::kAdded: return v1::WatchEvent::ADDED;
    case cache::EventType::kModified: return v1::WatchEvent::MODIFIED;
    case cache::EventType::kDeleted: return v1::WatchEvent::DELETED;
  }
  return v1::WatchEvent::TYPE_UNSPECIFIED;
}

grpc::Slice StringSlice(std::string text) { return grpc::Slice(std::move(text)); }

// Objects of kinds without a schema, or not fitting it, are served as JSON.
std::optional<std::string> KubeProtobufForm(std::string_view json) {
  absl::StatusOr<std::string> encoded = kube_proto::KubeProtobuf::Default().Encode(json);
  if (!encoded.ok()) return std::nullopt;
  return *std::move(encoded);
}

// The metadata-only form is JSON whatever the encoding asked for: a client
// decodes whichever of json and protobuf is set. A masked form may be
// dropped from its object once a later mask needs the slot: the slice
// returned holds its bytes.
grpc::Slice ProjectedWire(const cache::Object& object, const ReplyForm& form) {
  if (form.mask != nullptr && !form.mask->empty()) {
    std::shared_ptr<const cache::Object> masked = object.Masked(*form.mask);
    if (form.encoding == v1::ENCODING_PROTOBUF) return masked->Protobuf(&KubeProtobufForm).wire();
    return masked->wire();
  }
  if (form.projection == v1::PROJECTION_METADATA) return object.MetadataOnly().wire();
  if (form.encoding == v1::ENCODING_PROTOBUF) return object.Protobuf(&KubeProtobufForm).wire();
  return object.wire();
}

}  // namespace

grpc::ByteBuffer WatchEventBuffer(cache::EventType type, const cache::Object& object,
                                  uint64_t resource_version, bool final_state_unknown,
                                  const ReplyForm& form) {
  grpc::Slice wire = ProjectedWire(object, form);
  std::string head;
  PutTag(&head, v1::WatchEvent::kTypeFieldNumber, kVarint);
  PutVarint(&head, WireType(type));
  PutString(&head, v1::WatchEvent::kResourceVersionFieldNumber, std::to_string(resource_version));
  PutBool(&head, v1::WatchEvent::kFinalStateUnknownFieldNumber, final_state_unknown);
  PutTag(&head, v1::WatchEvent::kObjectFieldNumber, kLengthDelimited);
  PutVarint(&head, wire.size());
  grpc::Slice slices[] = {StringSlice(std::move(head)), wire};
  return grpc::ByteBuffer(slices, 2);
}

grpc::ByteBuffer BookmarkBuffer(uint64_t resource_version, bool initial_events_end) {
  v1::WatchEvent event;
  event.set_type(v1::WatchEvent::BOOKMARK);
  event.set_resource_version(std::to_string(resource_version));
  event.mutable_object()->set_resource_version(event.resource_version());
  event.set_initial_events_end(initial_events_end);
  return MessageBuffer(event);
}

grpc::ByteBuffer ListResponseBuffer(const std::vector<cache::ObjectPtr>& items,
                                    uint64_t resource_version,
                                    const std::string& continue_token,
                                    const ReplyForm& form) {
  std::vector<grpc::Slice> slices;
  slices.reserve(2 * items.size() + 1);
  for (const cache::ObjectPtr& item : items) {
    grpc::Slice wire = ProjectedWire(*item, form);
    std::string head;
    PutTag(&head, v1::ListResponse::kItemsFieldNumber, kLengthDelimited);
    PutVarint(&head, wire.size());
    slices.push_back(StringSlice(std::move(head)));
    slices.push_back(std::move(wire));
  }
  std::string tail;
  PutString(&tail, v1::ListResponse::kResourceVersionFieldNumber, std::to_string(resource_version));
  PutString(&tail, v1::ListResponse::kContinueTokenFieldNumber, continue_token);
  slices.push_back(StringSlice(std::move(tail)));
  return grpc::ByteBuffer(slices.data(), slices.size());
}

grpc::ByteBuffer GetResponseBuffer(const cache::Object& object, uint64_t resource_version,
                                   const ReplyForm& form) {
  grpc::Slice wire = ProjectedWire(object, form);
  std::string head;
  PutTag(&head, v1::GetResponse::kObjectFieldNumber, kLengthDelimited);
  PutVarint(&head, wire.size());
  std::string tail;
  PutString(&tail, v1::GetResponse::kResourceVersionFieldNumber, std::to_string(resource_version));
  grpc::Slice slices[] = {StringSlice(std::move(head)), wire, StringSlice(std::move(tail))};
  return grpc::ByteBuffer(slices, 3);
}

grpc::ByteBuffer MessageBuffer(const google::protobuf::MessageLite& message) {
  grpc::Slice slice(message.SerializeAsString());
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace informerd::service
