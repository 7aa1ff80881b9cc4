// KubeProtobuf: an object's JSON, as served by the apiserver, re-encoded in
// the Kubernetes protobuf encoding (application/vnd.kubernetes.protobuf).
//
// The output is what the kube-apiserver sends for the object: the 4-byte
// magic "k8s\0", then a runtime.Unknown message whose typeMeta carries the
// JSON's apiVersion and kind and whose raw is the object's message. The
// encoding is driven by the Kubernetes API's published .proto schemas
// (k8s.io/api's generated.proto files, compiled at build time by
// //bazel:kube_proto.bzl), not by generated code: every built-in type of the
// pinned k8s.io/api version is covered, and none is written by hand.
//
// What the schemas do not say is taken from the same module's Go sources:
// which API group a proto package serves (register.go), which fields have
// a JSON name other than their proto name, or are inlined into their
// parent's JSON (the Go struct tags), and which are not pointers in Go. The well-known apimachinery types whose
// JSON form differs from their message (Time, MicroTime, Duration, Quantity,
// IntOrString, RawExtension, FieldsV1) are converted by their JSON rules;
// byte fields are base64 in JSON; maps are written sorted by key, fields in
// field-number order, and a field that is not a pointer in Go is written
// even when the JSON leaves it out, at its zero value: the bytes are the
// apiserver's own (the oracle test counts how often).
//
// Guarantees: a field present in the JSON is present in the output, an
// absent or null one is absent unless Go writes it at its zero value, so a
// Go client decodes the same object from either, and the bytes are the
// apiserver's (the oracle test checks both against the apiserver). A JSON member
// the schema does not know (an apiserver newer than the schemas), or a
// value of the wrong JSON type, is an INVALID_ARGUMENT naming the field: the
// caller serves JSON instead of dropping data. A kind without a schema (a
// CRD, an aggregated API) is NOT_FOUND. Nesting is bounded (kMaxDepth).
//
// Thread safety: immutable after construction; Encode may run concurrently.
#ifndef INFORMERD_SERVER_KUBE_PROTO_KUBE_PROTOBUF_H_
#define INFORMERD_SERVER_KUBE_PROTO_KUBE_PROTOBUF_H_

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/descriptor.h"
#include "rapidjson/document.h"

namespace informerd::kube_proto {

// The magic prefix of the Kubernetes protobuf encoding.
inline constexpr std::string_view kMagic("k8s\0", 4);

class KubeProtobuf {
 public:
  // The deepest nesting encoded, counting messages and the arrays and
  // objects of the raw JSON they embed (RawExtension, FieldsV1); deeper
  // input is INVALID_ARGUMENT. Built-in objects nest a few dozen levels.
  static constexpr int kMaxDepth = 100;

  // The encoder for the schemas built into this binary. Built on first use.
  static const KubeProtobuf& Default();

  // From a serialized FileDescriptorSet (dependencies first) and the two
  // tables described in //bazel:kube_proto.bzl. Bad input is an error.
  static absl::StatusOr<std::unique_ptr<KubeProtobuf>> Create(std::string_view descriptor_set,
                                                              std::string_view groups,
                                                              std::string_view field_names,
                                                              std::string_view always_written);

  // The apiserver's protobuf bytes of the object in `json`, whose apiVersion
  // and kind say its type.
  absl::StatusOr<std::string> Encode(std::string_view json) const;

  // As Encode, for an already parsed object.
  absl::StatusOr<std::string> Encode(const rapidjson::Value& object) const;

  // Whether apiVersion/kind has a schema (false for CRDs).
  bool Knows(std::string_view api_version, std::string_view kind) const;

  // Whether the dotted field-mask `path` (see informerd.proto's "Field
  // masks") names a field of apiVersion/kind's JSON: a path through a list
  // names a field of its elements, one through a map names a key then a
  // field of its values. RawExtension and FieldsV1 take any path below
  // them; values that are JSON scalars (Time, Quantity, IntOrString, ...)
  // none. INVALID_ARGUMENT saying which segment names nothing and in which
  // message, e.g. `no field "nodeNmae" in k8s.io.api.core.v1.PodSpec`;
  // NOT_FOUND when the kind has no schema.
  absl::Status CheckFieldPath(std::string_view api_version, std::string_view kind,
                              std::string_view path) const;

 private:
  struct MessageInfo {
    std::unordered_map<std::string, const google::protobuf::FieldDescriptor*> by_json_name;
    // Fields whose members appear in the parent's JSON object (Go's inline).
    std::vector<const google::protobuf::FieldDescriptor*> inlined;
    // Fields written at their zero value when the JSON leaves them out, as
    // Go's generated code writes its non-pointer fields.
    std::vector<const google::protobuf::FieldDescriptor*> always;
  };
  class Writer;

  KubeProtobuf() = default;
  const google::protobuf::Descriptor* Find(std::string_view api_version, std::string_view kind) const;
  const MessageInfo& Info(const google::protobuf::Descriptor* message) const;

  google::protobuf::DescriptorPool pool_;
  // "group/version" ("v1" for the core group) -> proto package.
  std::unordered_map<std::string, std::string> packages_;
  std::unordered_map<const google::protobuf::Descriptor*, MessageInfo> messages_;
};

}  // namespace informerd::kube_proto

#endif  // INFORMERD_SERVER_KUBE_PROTO_KUBE_PROTOBUF_H_
