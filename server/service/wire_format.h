// Hand-framed protobuf responses that reuse each object's serialized bytes.
//
// Every cached Object carries its informerd.v1.Object message already
// serialized (Object::wire). These functions frame WatchEvent, ListResponse
// and GetResponse messages around those bytes as multi-slice ByteBuffers, so
// a delivery only writes a few header bytes and references the object: one
// serialization per object, shared by every watcher (KEP-1152's idea).
//
// With PROJECTION_METADATA they reference the object's metadata-only form
// instead (cache::Object::MetadataOnly, built once per object); with
// ENCODING_PROTOBUF, its protobuf form (cache::Object::Protobuf, likewise);
// with a field mask, its masked form (cache::Object::Masked, once per
// object and interned mask), in protobuf that form's protobuf form.
//
// Thread safety: pure functions.
#ifndef INFORMERD_SERVER_SERVICE_WIRE_FORMAT_H_
#define INFORMERD_SERVER_SERVICE_WIRE_FORMAT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/support/byte_buffer.h>

#include "informerd/v1/informerd.pb.h"
#include "server/cache/event.h"
#include "server/cache/field_mask.h"

namespace informerd::service {

// What of each object a reply carries, and in which encoding.
struct ReplyForm {
  v1::Projection projection = v1::PROJECTION_FULL;
  v1::Encoding encoding = v1::ENCODING_JSON;
  // Set (and not empty) for a masked reply; the projection is then folded
  // into it (FieldMask::Parse's with_metadata). Interned, so that objects
  // keep its forms.
  std::shared_ptr<const cache::FieldMask> mask;
};

// A WatchEvent of `type` carrying `object`.
grpc::ByteBuffer WatchEventBuffer(cache::EventType type, const cache::Object& object,
                                  uint64_t resource_version, bool final_state_unknown,
                                  const ReplyForm& form = {});

// A BOOKMARK WatchEvent at `resource_version`.
grpc::ByteBuffer BookmarkBuffer(uint64_t resource_version, bool initial_events_end);

grpc::ByteBuffer ListResponseBuffer(const std::vector<cache::ObjectPtr>& items,
                                    uint64_t resource_version,
                                    const std::string& continue_token,
                                    const ReplyForm& form = {});

grpc::ByteBuffer GetResponseBuffer(const cache::Object& object, uint64_t resource_version,
                                   const ReplyForm& form = {});

// Any message as a one-slice buffer (for small, rare messages).
grpc::ByteBuffer MessageBuffer(const google::protobuf::MessageLite& message);

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_WIRE_FORMAT_H_
