// The launch of admitted Watches: where each stream starts (the current
// state, a resume point, or a backfill from the apiserver), at once or once
// the Informer has reached the version, without holding a thread.
#include <optional>
#include <utility>

#include "absl/time/clock.h"
#include "server/service/cache_service.h"
#include "server/service/grpc_status.h"
#include "server/service/version_waits.h"

namespace informerd::service {

WatchStreamOptions CacheService::WatchOptions(const v1::WatchRequest& request, ReplyForm form,
                                              const Credentials& credentials,
                                              const auth::ResourceAttributes& attributes) {
  WatchStreamOptions stream_options;
  stream_options.allow_bookmarks = request.allow_bookmarks();
  stream_options.form = std::move(form);
  stream_options.bookmark_interval = options_.bookmark_interval;
  if (!admission_.authenticates()) return stream_options;
  // The credentials are reviewed again at every re-check (a stream starts
  // only once they were accepted): a token is reviewed again too, so a
  // deleted service account loses its watches; a certificate's user stays
  // who it is (the handshake checked it).
  stream_options.recheck = [this, credentials, attributes] {
    return admission_.Recheck(credentials, attributes);
  };
  stream_options.recheck_interval = options_.auth_recheck_interval;
  stream_options.recheck_grace = options_.auth_recheck_grace;
  stream_options.review_workers = admission_.review_workers();
  return stream_options;
}

CacheService::WatchLaunch CacheService::PrepareLaunch(const WatchAdmission& admitted,
                                                      const std::string& identity) {
  const v1::WatchRequest& request = admitted.request();
  // As the apiserver: resource_version "0" starts with the current state as
  // ADDED events (without the WatchList end marker).
  const bool legacy_initial = request.resource_version() == "0" && !request.send_initial_events();
  const bool initial = request.send_initial_events() || legacy_initial;
  WatchLaunch launch;
  launch.resource = admitted.resource();
  launch.version = admitted.version();
  launch.make_start = [this, informer = admitted.resource()->informer.get(),
                       name = admitted.resource()->DisplayName(), filter = admitted.filter(), initial,
                       send_initial_events = request.send_initial_events(),
                       from_now = request.resource_version().empty(), version = admitted.version(),
                       identity]() -> absl::StatusOr<WatchStart> {
    WatchStart start;
    if (initial) {
      informer::Informer::InitialState state = informer->Snapshot(filter);
      size_t bytes = 0;
      for (const cache::ObjectPtr& object : state.objects) bytes += object->ApproximateBytes();
      bool per_identity = false;
      absl::StatusOr<limits::ConcurrencyLimiter::Permit> charge =
          initial_bytes_limiter_.Acquire(identity, &per_identity, bytes);
      if (!charge.ok()) {
        metrics_->RequestRejected("Watch", per_identity ? "identity_initial_bytes"
                                                        : "global_initial_bytes");
        return charge.status();
      }
      metrics_->InitialStateServed(name);
      start.initial_charge =
          std::make_shared<limits::ConcurrencyLimiter::Permit>(*std::move(charge));
      start.position = state.position;
      start.initial_objects = std::move(state.objects);
      start.initial_version = state.resource_version;
      start.send_initial_events = send_initial_events;
      return start;
    }
    absl::StatusOr<uint64_t> position =
        informer->WatchPosition(from_now ? informer->resource_version() : version);
    if (!position.ok()) return position.status();
    start.position = *position;
    return start;
  };
  // A resume from before the history (this process started after the
  // client's last event) is backfilled from the API server rather than
  // answered OUT_OF_RANGE, which would make the client relist.
  if (!initial && !request.resource_version().empty()) {
    launch.backfill = admitted.resource()->backfill.get();
  }
  return launch;
}

void CacheService::Launch(const WatchLaunch& launch,
                          std::function<void(absl::StatusOr<WatchStart>)> starter,
                          std::function<bool()> still_waiting) {
  auto start_after_backfill = [launch, starter, still_waiting] {
    launch.backfill->Request(launch.version,
                             [starter, make_start = launch.make_start](absl::Status filled) {
                               starter(filled.ok() ? make_start()
                                                   : absl::StatusOr<WatchStart>(filled));
                             },
                             still_waiting);
  };
  auto start_now = [launch, starter, start_after_backfill] {
    absl::StatusOr<WatchStart> now = launch.make_start();
    if (!now.ok() && launch.backfill != nullptr && absl::IsOutOfRange(now.status())) {
      start_after_backfill();
      return;
    }
    starter(std::move(now));
  };
  if (Reached(*launch.resource->informer, launch.version)) {
    start_now();
    return;
  }
  version_waits_.Wait(launch.resource->informer.get(), launch.version,
                      absl::Now() + options_.version_wait,
                      [starter, start_now, resource = launch.resource,
                       version = launch.version](bool reached) {
                        if (!reached) {
                          starter(NotReached(*resource->informer, resource->DisplayName(), version));
                          return;
                        }
                        start_now();
                      });
}

grpc::Status CacheService::StartWatch(const Caller& caller, const Credentials& credentials,
                                      const WatchAdmission& admitted,
                                      limits::ConcurrencyLimiter::Permit permit,
                                      WatchStream** stream, std::function<void()>* after_begin) {
  absl::StatusOr<ReplyForm> form = FormFor("Watch", admitted.request().projection(),
                                           admitted.request().encoding(), admitted.mask());
  if (!form.ok()) return ToGrpc(form.status());
  WatchLaunch launch = PrepareLaunch(admitted, caller.identity);
  // Started here when it can be, so that a refusal (OUT_OF_RANGE, the
  // initial-events budget) is the call's status before any stream exists.
  std::optional<WatchStart> start;
  if (Reached(*admitted.resource()->informer, admitted.version())) {
    absl::StatusOr<WatchStart> now = launch.make_start();
    if (now.ok()) {
      start = *std::move(now);
    } else if (launch.backfill == nullptr || !absl::IsOutOfRange(now.status())) {
      return ToGrpc(now.status());
    }
  }
  // A Watch that waits (for its version, a first sync or a backfill) takes
  // no waiting-read permit: its watch permit bounds it already, and it
  // holds no thread. After a restart every client resumes at once, and a
  // refusal there would make them all relist.
  const bool deferred = !start.has_value();
  *stream = new WatchStream(admitted.resource()->informer.get(),
                            admitted.resource()->DisplayName(), admitted.filter(),
                            WatchOptions(admitted.request(), *std::move(form), credentials,
                                         admitted.attributes()),
                            std::move(start), metrics_, &watches_, std::move(permit));
  if (deferred) {
    *after_begin = [this, launch = std::move(launch), starter = (*stream)->Starter(),
                    still_waiting = (*stream)->StillWaiting()] {
      Launch(launch, starter, still_waiting);
    };
  }
  return grpc::Status::OK;
}

}  // namespace informerd::service
