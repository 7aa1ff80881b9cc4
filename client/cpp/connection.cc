#include "client/cpp/connection.h"

#include <fstream>
#include <sstream>

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace informerd {
namespace client {

namespace {

absl::StatusOr<std::string> ReadFile(const std::string& field,
                                     const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": cannot read \"", path, "\""));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

absl::Status ValidateOptions(const ConnectionOptions& options) {
  if (options.address.empty()) {
    return absl::InvalidArgumentError("address: required");
  }
  if (!options.token.empty() && !options.token_file.empty()) {
    return absl::InvalidArgumentError(
        "token, token_file: at most one may be set");
  }
  if ((!options.token.empty() || !options.token_file.empty()) &&
      !options.tls && !options.allow_token_without_tls) {
    return absl::InvalidArgumentError(
        "token, token_file: a token needs tls (or allow_token_without_tls)");
  }
  if (options.cert_file.empty() != options.key_file.empty()) {
    return absl::InvalidArgumentError(
        "cert_file, key_file: set both for a client certificate, or neither");
  }
  if (!options.tls && (!options.ca_file.empty() || !options.cert_file.empty())) {
    return absl::InvalidArgumentError(
        "ca_file, cert_file, key_file: only used with tls");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeCredentials(
    const ConnectionOptions& options) {
  if (!options.tls) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  if (!options.ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadFile("ca_file", options.ca_file);
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *std::move(ca);
  }
  if (!options.cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadFile("cert_file", options.cert_file);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadFile("key_file", options.key_file);
    if (!key.ok()) return key.status();
    ssl.pem_cert_chain = *std::move(cert);
    ssl.pem_private_key = *std::move(key);
  }
  return grpc::SslCredentials(ssl);
}

absl::StatusOr<std::string> CurrentToken(const ConnectionOptions& options) {
  if (options.token_file.empty()) return options.token;
  absl::StatusOr<std::string> token =
      ReadFile("token_file", options.token_file);
  if (!token.ok()) return token.status();
  std::string stripped(absl::StripAsciiWhitespace(*token));
  if (stripped.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("token_file: \"", options.token_file, "\" is empty"));
  }
  return stripped;
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::Channel>> Connect(
    const ConnectionOptions& options) {
  if (absl::Status valid = ValidateOptions(options); !valid.ok()) return valid;
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeCredentials(options);
  if (!credentials.ok()) return credentials.status();
  grpc::ChannelArguments arguments;
  // pick_first would pin every call to one replica behind a DNS name.
  arguments.SetLoadBalancingPolicyName("round_robin");
  // gRPC's reconnect backoff grows to 120 s by default, and calls fail at
  // once while it waits: a client would stay behind a restarted server for
  // that long. informerd is a local, cheap-to-reconnect peer; 1 s bounds
  // the catch-up. GRPC_ARG_MIN_RECONNECT_BACKOFF_MS stays at its default
  // (20 s): gRPC gives each connection attempt that long, and at 100 ms an
  // attempt was cut before the server's first answer arrived, so a port
  // that is not gRPC read "tcp handshaker shutdown" instead of the reason,
  // and a slow TLS handshake could never complete.
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  return grpc::CreateCustomChannel(options.address, *credentials, arguments);
}

absl::Status PrepareContext(const ConnectionOptions& options,
                            grpc::ClientContext* context, bool streaming) {
  absl::StatusOr<std::string> token = CurrentToken(options);
  if (!token.ok()) return token.status();
  if (!token->empty()) {
    context->AddMetadata("authorization", absl::StrCat("Bearer ", *token));
  }
  if (!streaming && options.default_deadline > absl::ZeroDuration() &&
      options.default_deadline != absl::InfiniteDuration()) {
    context->set_deadline(
        absl::ToChronoTime(absl::Now() + options.default_deadline));
  }
  return absl::OkStatus();
}

}  // namespace client
}  // namespace informerd
