#include "client/cpp/informerctl/health_wire.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"

namespace informerd {
namespace informerctl {

using google::protobuf::internal::WireFormatLite;

const char kHealthCheckMethod[] = "/grpc.health.v1.Health/Check";

namespace {

constexpr int kStatusField = 1;
constexpr int kServiceField = 1;

}  // namespace

std::string EncodeHealthCheckRequest(absl::string_view service) {
  std::string bytes;
  if (service.empty()) return bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream output(&stream);
  output.WriteTag(WireFormatLite::MakeTag(
      kServiceField, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  output.WriteVarint32(static_cast<uint32_t>(service.size()));
  output.WriteRaw(service.data(), static_cast<int>(service.size()));
  output.Trim();
  return bytes;
}

absl::StatusOr<int> DecodeServingStatus(absl::string_view response) {
  google::protobuf::io::CodedInputStream input(
      reinterpret_cast<const uint8_t*>(response.data()),
      static_cast<int>(response.size()));
  int status = static_cast<int>(ServingStatus::kUnknown);
  while (uint32_t tag = input.ReadTag()) {
    if (WireFormatLite::GetTagFieldNumber(tag) == kStatusField &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_VARINT) {
      uint32_t value;
      if (!input.ReadVarint32(&value)) break;
      status = static_cast<int>(value);
    } else if (!WireFormatLite::SkipField(&input, tag)) {
      break;
    }
  }
  if (!input.ConsumedEntireMessage() || input.CurrentPosition() !=
                                            static_cast<int>(response.size())) {
    return absl::InvalidArgumentError(
        "HealthCheckResponse: malformed protobuf message");
  }
  return status;
}

std::string ServingStatusName(int status) {
  switch (static_cast<ServingStatus>(status)) {
    case ServingStatus::kUnknown:
      return "UNKNOWN";
    case ServingStatus::kServing:
      return "SERVING";
    case ServingStatus::kNotServing:
      return "NOT_SERVING";
    case ServingStatus::kServiceUnknown:
      return "SERVICE_UNKNOWN";
  }
  return absl::StrCat(status);
}

}  // namespace informerctl
}  // namespace informerd

