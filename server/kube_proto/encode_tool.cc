// kube_proto_encode: KubeProtobuf::Default().Encode over stdin, for the Go
// fuzz test (client/go/internal/protofuzz), which makes random objects with
// Kubernetes' own fuzzer and checks that client-go decodes informerd's
// encoding of each as it decodes the JSON.
//
// Input: one compact JSON object per line. Output, one line each: "OK " and
// the encoding in base64, "NOTFOUND " or "ERROR " and the reason.
#include <iostream>
#include <string>

#include "absl/strings/escaping.h"
#include "server/kube_proto/kube_protobuf.h"

int main() {
  std::ios::sync_with_stdio(false);
  const auto& encoder = informerd::kube_proto::KubeProtobuf::Default();
  std::string line;
  while (std::getline(std::cin, line)) {
    absl::StatusOr<std::string> encoded = encoder.Encode(line);
    if (encoded.ok()) {
      std::cout << "OK " << absl::Base64Escape(*encoded) << "\n";
    } else if (absl::IsNotFound(encoded.status())) {
      std::cout << "NOTFOUND " << encoded.status().message() << "\n";
    } else {
      std::cout << "ERROR " << encoded.status().message() << "\n";
    }
    std::cout.flush();
  }
  return 0;
}
