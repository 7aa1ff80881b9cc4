// libFuzzer target: JwtVerifier's parsing of tokens and JwtKeys' parsing of
// key sets must survive any input, and no input it did not sign is ever
// kSigned without a subject. The input is split at its first NUL: a key
// set, then a token.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "server/auth/jwt_verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using informerd::auth::JwtKeys;
  using informerd::auth::JwtVerifier;
  using informerd::auth::TokenCheck;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view jwks = nul == std::string_view::npos ? input : input.substr(0, nul);
  const std::string_view token = nul == std::string_view::npos ? input : input.substr(nul + 1);
  absl::StatusOr<std::shared_ptr<const JwtKeys>> keys = JwtKeys::Parse("issuer", jwks);
  if (!keys.ok() && keys.status().code() != absl::StatusCode::kInvalidArgument) abort();
  JwtVerifier verifier({"aud"});
  if (keys.ok()) {
    if ((*keys)->size() > informerd::auth::kMaxJwksKeys) abort();
    verifier.SetKeys(*keys);
  }
  TokenCheck check = verifier.Check(token, absl::FromUnixSeconds(1'800'000'000));
  if (check.verdict == TokenCheck::Verdict::kSigned && check.subject.empty()) abort();
  if (check.verdict == TokenCheck::Verdict::kInvalid && check.reason.empty()) abort();
  return 0;
}
