// RequestLimits: how much the cache service lets callers hold at once and
// how fast they may ask, per caller identity and in total. Identities are
// users with an Authorizer, else peer addresses.
#ifndef INFORMERD_SERVER_LIMITS_REQUEST_LIMITS_H_
#define INFORMERD_SERVER_LIMITS_REQUEST_LIMITS_H_

#include <cstddef>

#include "server/limits/rate_limiter.h"

namespace informerd::limits {

struct RequestLimits {
  size_t max_watches = 10000;
  size_t max_watches_per_identity = 1000;
  size_t max_lists = 256;
  size_t max_lists_per_identity = 16;
  // Gets and Lists that must wait for the cache to reach a version (a
  // future resource_version, or a resource not synced yet) each hold a
  // callback thread for up to the read wait; these bound how many do.
  size_t max_waiting_reads = 64;
  size_t max_waiting_reads_per_identity = 8;
  // The initial events (WatchList, resource_version "0") that streams hold
  // until written, by the objects' approximate bytes: per caller (its first
  // such stream is admitted whatever its size) and in total.
  size_t max_initial_bytes = size_t{2} << 30;
  size_t max_initial_bytes_per_identity = size_t{256} << 20;
  // Requests (List, Get, ListResources and Watch starts) per second.
  RateLimits rates;
  // TokenReviews spent on tokens not in the Authorizer's caches, per lane
  // ("new": never accepted, which includes every made-up token;
  // "remembered": accepted before) and in total; never per client address,
  // which a proxy, NAT or hostNetwork makes one for many callers. What
  // bounds the reviews a flood of made-up tokens costs the apiserver
  // (refused with RESOURCE_EXHAUSTED, before any review), without spending
  // the reviews of tokens accepted before.
  RateLimits token_reviews = DefaultTokenReviewLimits();
  // TokenReviews of tokens whose signature the service account issuer's
  // keys verified locally (auth::JwtVerifier), per subject and in total,
  // apart from token_reviews: a made-up token cannot spend them.
  RateLimits signed_token_reviews = DefaultSignedTokenReviewLimits();
  // Calls of one identity queued or running on the review workers; past it
  // RESOURCE_EXHAUSTED, not queued. The calls of tokens never accepted
  // share one such quota, as large as their TokenReview burst
  // (token_reviews.per_identity_burst), which bounds them already.
  size_t max_reviews_per_identity = 16;
};

}  // namespace informerd::limits

#endif  // INFORMERD_SERVER_LIMITS_REQUEST_LIMITS_H_
