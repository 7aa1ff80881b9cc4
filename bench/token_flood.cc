// token_flood: what a flood of made-up bearer tokens costs a legitimate
// caller, for the token-flood benchmark (bench/token_flood.sh, the "secure
// by default" issue's item 3). One program, two roles, run as two
// processes so that the flood (the attacker's CPU, run at low priority)
// does not starve the caller on a shared machine:
//   --role=caller: --samples rounds of one List and one Watch start (from
//     resource_version "0", until its first event), paced; prints
//     caller list_p50_ms=.. list_p99_ms=.. watch_p50_ms=.. watch_p99_ms=..
//       failures=N seconds=S
//   --role=flood: Lists with random made-up tokens at --rate per second
//     (0: as fast as --flood_in_flight calls in flight allow), over
//     --flood_channels connections, until SIGTERM or SIGINT; prints
//     flood rate=R sent=N per_s=X seconds=S codes=CODE:COUNT,...
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/measurement.h"
#include "informerd/v1/informerd.grpc.pb.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "informerd's gRPC address");
ABSL_FLAG(std::string, role, "caller", "caller or flood");
ABSL_FLAG(std::string, token_file, "", "the legitimate caller's bearer token (--role=caller)");
ABSL_FLAG(std::string, namespace_, "", "the namespace whose configmaps are read (not empty)");
ABSL_FLAG(int, samples, 500, "List + Watch rounds of the legitimate caller");
ABSL_FLAG(int, rate, 0, "made-up tokens a second (--role=flood); 0: unpaced");
ABSL_FLAG(int, flood_in_flight, 200, "most flood calls in flight at once");
ABSL_FLAG(int, flood_channels, 4, "connections the flood spreads over");
ABSL_FLAG(int, token_bytes, 7500,
          "made-up token length (about the most that passes gRPC's 8 KiB header limit with a "
          "call's other headers, so each reaches authentication)");
ABSL_FLAG(int, caller_rounds_per_s, 50,
          "the legitimate caller's pace (a List and a Watch a round), well under its own "
          "request rate limit");

namespace informerd::bench {
namespace {

std::shared_ptr<grpc::Channel> OwnChannel(const std::string& target, int index) {
  grpc::ChannelArguments args;
  // A connection of its own, not a shared subchannel.
  args.SetInt("token_flood.channel", index);
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

struct Latencies {
  std::vector<int64_t> list_ns;
  std::vector<int64_t> watch_ns;
  int failures = 0;
};

// The legitimate caller: List, then a Watch until its first event.
Latencies MeasureCaller(v1::Cache::Stub* stub, const std::string& token, const std::string& ns,
                        int samples, int rounds_per_s) {
  v1::ListRequest list;
  list.mutable_resource()->set_resource("configmaps");
  list.set_namespace_(ns);
  v1::WatchRequest watch;
  watch.mutable_resource()->set_resource("configmaps");
  watch.set_namespace_(ns);
  watch.set_resource_version("0");
  Latencies latencies;
  const absl::Time begin = absl::Now();
  for (int i = 0; i < samples; ++i) {
    absl::Duration wait = begin + absl::Seconds(i) / rounds_per_s - absl::Now();
    // Pacing the caller, not synchronising with anything.
    if (wait > absl::ZeroDuration()) absl::SleepFor(wait);
    {
      grpc::ClientContext context;
      context.AddMetadata("authorization", "Bearer " + token);
      context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
      v1::ListResponse response;
      int64_t start = SteadyNanos();
      grpc::Status status = stub->List(&context, list, &response);
      latencies.list_ns.push_back(SteadyNanos() - start);
      if (!status.ok()) ++latencies.failures;
    }
    {
      grpc::ClientContext context;
      context.AddMetadata("authorization", "Bearer " + token);
      context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
      int64_t start = SteadyNanos();
      auto reader = stub->Watch(&context, watch);
      v1::WatchEvent event;
      bool started = reader->Read(&event);
      latencies.watch_ns.push_back(SteadyNanos() - start);
      if (!started) ++latencies.failures;
      context.TryCancel();
      reader->Finish();
    }
  }
  return latencies;
}

// Lists with made-up tokens, paced at `rate` per second (0: unpaced), with
// at most `in_flight` outstanding, until Stop.
class Flood {
 public:
  Flood(std::vector<std::unique_ptr<v1::Cache::Stub>>* stubs, std::string ns, int rate,
        int in_flight, int token_bytes)
      : stubs_(stubs), rate_(rate), in_flight_limit_(in_flight), token_bytes_(token_bytes) {
    request_.mutable_resource()->set_resource("configmaps");
    request_.set_namespace_(std::move(ns));
    thread_ = std::thread([this] { Send(); });
  }
  // Stops sending and waits for the calls in flight.
  void Stop() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    thread_.join();
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(+[](int* n) { return *n == 0; }, &in_flight_));
  }
  int sent() const { return sent_; }
  std::map<std::string, int> codes() {
    absl::MutexLock lock(&mu_);
    return codes_;
  }

 private:
  struct Call {
    grpc::ClientContext context;
    v1::ListResponse response;
  };
  void Send() {
    std::mt19937_64 random(42);
    static constexpr char kAlphabet[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
    const absl::Time begin = absl::Now();
    for (int i = 0;; ++i) {
      if (rate_ > 0) {
        absl::Time due = begin + absl::Seconds(i) / rate_;
        absl::Duration wait = due - absl::Now();
        // Pacing the sender itself, not synchronising with anything.
        if (wait > absl::ZeroDuration()) absl::SleepFor(wait);
      }
      {
        absl::MutexLock lock(&mu_);
        auto room = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return stopping_ || in_flight_ < in_flight_limit_;
        };
        mu_.Await(absl::Condition(&room));
        if (stopping_) return;
        ++in_flight_;
      }
      std::string token(token_bytes_, 'x');
      for (char& c : token) c = kAlphabet[random() % (sizeof(kAlphabet) - 1)];
      auto call = std::make_shared<Call>();
      call->context.AddMetadata("authorization", "Bearer " + token);
      call->context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
      ++sent_;
      (*stubs_)[i % stubs_->size()]->async()->List(
          &call->context, &request_, &call->response, [this, call](grpc::Status status) {
            absl::MutexLock lock(&mu_);
            ++codes_[CodeName(status.error_code())];
            --in_flight_;
          });
    }
  }
  static std::string CodeName(grpc::StatusCode code) {
    switch (code) {
      case grpc::StatusCode::OK:
        return "OK";
      case grpc::StatusCode::UNAUTHENTICATED:
        return "UNAUTHENTICATED";
      case grpc::StatusCode::RESOURCE_EXHAUSTED:
        return "RESOURCE_EXHAUSTED";
      case grpc::StatusCode::UNAVAILABLE:
        return "UNAVAILABLE";
      case grpc::StatusCode::DEADLINE_EXCEEDED:
        return "DEADLINE_EXCEEDED";
      default:
        return absl::StrCat(static_cast<int>(code));
    }
  }

  std::vector<std::unique_ptr<v1::Cache::Stub>>* const stubs_;
  const int rate_;
  const int in_flight_limit_;
  const int token_bytes_;
  v1::ListRequest request_;
  std::atomic<int> sent_{0};
  absl::Mutex mu_;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, int> codes_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

int RunCaller(const std::string& target, const std::string& ns) {
  const std::string token = ReadToken(absl::GetFlag(FLAGS_token_file));
  if (token.empty()) {
    std::fprintf(stderr, "token_flood: --token_file must name a readable token\n");
    return 2;
  }
  auto stub = v1::Cache::NewStub(OwnChannel(target, -1));
  const int pace = absl::GetFlag(FLAGS_caller_rounds_per_s);
  // Warm: the caller's token and permissions reviewed and cached.
  MeasureCaller(stub.get(), token, ns, 20, pace);
  const absl::Time start = absl::Now();
  Latencies caller = MeasureCaller(stub.get(), token, ns, absl::GetFlag(FLAGS_samples), pace);
  std::printf(
      "caller list_p50_ms=%.3f list_p99_ms=%.3f watch_p50_ms=%.3f watch_p99_ms=%.3f "
      "failures=%d seconds=%.2f\n",
      Percentile(&caller.list_ns, 0.5) / 1e6, Percentile(&caller.list_ns, 0.99) / 1e6,
      Percentile(&caller.watch_ns, 0.5) / 1e6, Percentile(&caller.watch_ns, 0.99) / 1e6,
      caller.failures, absl::ToDoubleSeconds(absl::Now() - start));
  return 0;
}

int RunFlood(const std::string& target, const std::string& ns) {
  // Blocked before any thread starts, so only the sigwait below takes them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::vector<std::unique_ptr<v1::Cache::Stub>> stubs;
  for (int i = 0; i < absl::GetFlag(FLAGS_flood_channels); ++i) {
    stubs.push_back(v1::Cache::NewStub(OwnChannel(target, i)));
  }
  const int rate = absl::GetFlag(FLAGS_rate);
  const absl::Time start = absl::Now();
  Flood flood(&stubs, ns, rate, absl::GetFlag(FLAGS_flood_in_flight),
              absl::GetFlag(FLAGS_token_bytes));
  int signal = 0;
  sigwait(&stop_signals, &signal);
  flood.Stop();
  const absl::Duration lasted = absl::Now() - start;
  std::vector<std::string> counted;
  for (const auto& [code, count] : flood.codes()) counted.push_back(absl::StrCat(code, ":", count));
  std::printf("flood rate=%d sent=%d per_s=%.0f seconds=%.2f codes=%s\n", rate, flood.sent(),
              flood.sent() / absl::ToDoubleSeconds(lasted), absl::ToDoubleSeconds(lasted),
              absl::StrJoin(counted, ",").c_str());
  return 0;
}

int Run() {
  const std::string target = absl::GetFlag(FLAGS_target);
  const std::string ns = absl::GetFlag(FLAGS_namespace_);
  const std::string role = absl::GetFlag(FLAGS_role);
  if (ns.empty()) {
    std::fprintf(stderr, "token_flood: --namespace_ is required\n");
    return 2;
  }
  if (role == "caller") return RunCaller(target, ns);
  if (role == "flood") return RunFlood(target, ns);
  std::fprintf(stderr, "token_flood: --role: \"%s\" is neither caller nor flood\n",
               role.c_str());
  return 2;
}

}  // namespace
}  // namespace informerd::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return informerd::bench::Run();
}
