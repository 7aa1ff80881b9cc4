#include "server/auth/issuer_keys.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "rapidjson/document.h"
#include "server/json/json_members.h"
#include "server/json/json_parse.h"
#include "server/log/log.h"

namespace informerd::auth {
namespace {

constexpr char kComponent[] = "auth";
constexpr char kDiscoveryPath[] = "/.well-known/openid-configuration";
// The apiserver serves its keys here whatever jwks_uri the discovery
// document advertises (--service-account-jwks-uri names where others
// fetch them, e.g. through a proxy).
constexpr char kJwksPath[] = "/openid/v1/jwks";
constexpr size_t kMaxDiscoveryBytes = 64 * 1024;

absl::StatusOr<std::string> GetBody(kube::RestClient* client, const char* path, size_t max_bytes,
                                    const char* accept) {
  absl::StatusOr<kube::HttpResponse> response = client->GetAccepting(path, accept);
  if (!response.ok()) return response.status();
  if (response->status != 200) {
    return absl::UnavailableError(absl::StrCat("GET ", path, ": HTTP ", response->status));
  }
  if (response->body.size() > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("GET ", path, ": ", response->body.size(), " bytes, more than ", max_bytes));
  }
  return std::move(response->body);
}

}  // namespace

IssuerKeys::IssuerKeys(kube::RestClient* client, JwtVerifier* verifier, IssuerKeysOptions options)
    : client_(client), verifier_(verifier), options_(options) {
  absl::Status fetched = Fetch();
  {
    absl::MutexLock lock(&mu_);
    last_fetch_ = fetched;
  }
  thread_ = std::thread([this] { Run(); });
}

IssuerKeys::~IssuerKeys() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

void IssuerKeys::RequestRefetch() {
  absl::MutexLock lock(&mu_);
  refetch_ = true;
}

absl::Status IssuerKeys::last_fetch() const {
  absl::MutexLock lock(&mu_);
  return last_fetch_;
}

absl::Status IssuerKeys::Fetch() {
  absl::StatusOr<std::string> discovery =
      GetBody(client_, kDiscoveryPath, kMaxDiscoveryBytes, "application/json");
  absl::StatusOr<std::string> jwks =
      discovery.ok() ? GetBody(client_, kJwksPath, kMaxJwksBytes,
                               "application/jwk-set+json, application/json")
                     : discovery.status();
  absl::Status status = jwks.status();
  if (status.ok()) {
    rapidjson::Document document;
    status = json::Parse(*discovery, &document);
    std::string issuer(json::StringMember(document, "issuer"));
    absl::StatusOr<std::shared_ptr<const JwtKeys>> keys =
        status.ok() ? JwtKeys::Parse(issuer, *jwks) : status;
    if (keys.ok()) {
      verifier_->SetKeys(*keys);
      log::Info(kComponent, absl::StrCat("service account issuer ", (*keys)->issuer(), ": ",
                                         (*keys)->size(), " signing keys"));
      return absl::OkStatus();
    }
    status = keys.status();
  }
  log::Warning(kComponent,
               absl::StrCat("cannot read the service account issuer's keys (tokens are reviewed "
                            "without local verification until they are read): ",
                            status.message()));
  return status;
}

void IssuerKeys::Run() {
  absl::Time last = absl::Now();
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      // Wakes for a refetch no sooner than min_refetch_interval after the
      // last fetch, and at refresh_interval regardless.
      mu_.AwaitWithDeadline(
          absl::Condition(
              +[](IssuerKeys* keys) ABSL_EXCLUSIVE_LOCKS_REQUIRED(keys->mu_) {
                return keys->stopping_ || keys->refetch_;
              },
              this),
          last + options_.refresh_interval);
      if (stopping_) return;
      if (refetch_) {
        const absl::Time earliest = last + options_.min_refetch_interval;
        mu_.AwaitWithDeadline(absl::Condition(&stopping_), earliest);
        if (stopping_) return;
      }
      refetch_ = false;
    }
    absl::Status fetched = Fetch();
    last = absl::Now();
    absl::MutexLock lock(&mu_);
    last_fetch_ = fetched;
  }
}

}  // namespace informerd::auth
