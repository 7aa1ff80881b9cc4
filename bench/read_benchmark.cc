// read_benchmark: the read path of docs/BENCHMARKS.md. C concurrent callers
// (one thread each) repeat one read for a fixed time against informerd
// (gRPC) or the kube-apiserver (HTTPS), and one markdown row per (operation,
// target, clients) gives requests/s, p50 and p99 latency and the server's
// CPU per request. Operations, on pods of one namespace:
//   get         Get of a random pod (names from an initial informerd List)
//   list_index  List of spec.nodeName=INDEX_VALUE: informerd's field index,
//               the apiserver's fieldSelector
//   list_label  List with LABEL_SELECTOR
// The apiserver answers each List twice over: from its watch cache
// (resourceVersion=0) and as a consistent read from etcd (no
// resourceVersion, what a plain List asks for). Its responses are read
// whole but not decoded; informerd's are decoded as ListResponse messages,
// which a gRPC client cannot avoid. Ratios (informerd / apiserver, same
// operation and clients) follow the table.
//
// Closed-loop rows (each caller calls again as soon as it has an answer)
// give throughput; by Little's law their latency is clients / throughput.
// Paced rows (--paced_clients) offer a fixed total rate instead, so their
// latency is what a caller sees at that load; it is measured from each
// call's scheduled start, so a caller that falls behind counts the delay.
// Open-loop rows (--open_loop_clients, --open_loop_rates; Gets only) offer a
// fixed rate from one thread through gRPC's callback API, with at most
// CLIENTS calls in flight: latency at a load without one client thread per
// caller competing with the server for the same cores. Each comes with the
// same row for the server's health check, which does no work: the latency
// gRPC itself gives on this machine. informerd's Lists
// follow continue tokens: pages are capped below gRPC's 4 MiB.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <httplib.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/apiserver_flags.h"
#include "bench/measurement.h"
#include "bench/proc_stats.h"
#include "informerd/v1/informerd.grpc.pb.h"

ABSL_FLAG(std::string, informerd_address, "127.0.0.1:20074", "informerd gRPC address");
ABSL_FLAG(int, informerd_pid, 0, "informerd's pid, for CPU per request");
ABSL_FLAG(int, apiserver_pid, 0, "kube-apiserver's pid, for CPU per request");
ABSL_FLAG(std::string, index_value, "node-7", "spec.nodeName of list_index");
ABSL_FLAG(std::string, label_selector, "shard=7", "label selector of list_label");
ABSL_FLAG(std::string, clients, "1,100,1000", "informerd rows: concurrent callers");
ABSL_FLAG(std::string, apiserver_clients, "1,100",
          "apiserver watch-cache rows (resourceVersion=0): concurrent callers");
ABSL_FLAG(std::string, apiserver_etcd_clients, "1",
          "apiserver etcd rows (no resourceVersion): concurrent callers; each List reads "
          "the whole namespace from etcd, so 100 callers queue for minutes");
ABSL_FLAG(std::string, paced_clients, "", "informerd paced rows: concurrent callers");
ABSL_FLAG(double, paced_rate, 1000, "paced rows: requests/s offered, in total");
ABSL_FLAG(double, paced_list_rate, 0,
          "paced List rows: requests/s offered, in total (0: --paced_rate); Lists of "
          "thousands of objects need a lower rate than Gets");
ABSL_FLAG(std::string, open_loop_clients, "",
          "informerd open-loop Get rows: most calls in flight");
ABSL_FLAG(std::string, open_loop_rates, "1000,5000", "open-loop Get rows: requests/s offered");
ABSL_FLAG(std::string, target_note, "",
          "appended to the target column of every row (conditions of this run)");
ABSL_FLAG(double, seconds, 5, "measured seconds per row");
ABSL_FLAG(double, warmup_seconds, 1, "seconds per row before measuring");
ABSL_FLAG(int, clients_per_connection, 100, "informerd callers sharing one gRPC connection");

namespace informerd::bench {
namespace {

// kHealth: grpc.health.v1 Check, open loop only: gRPC's floor on this machine.
enum class Operation { kGet, kListIndex, kListLabel, kHealth };
enum class Target { kInformerd, kInformerdOpenLoop, kApiserverCache, kApiserverEtcd };

const char* OperationName(Operation operation) {
  switch (operation) {
    case Operation::kGet: return "get";
    case Operation::kListIndex: return "list_index";
    case Operation::kListLabel: return "list_label";
    case Operation::kHealth: return "health (gRPC floor)";
  }
  return "";
}

const char* TargetName(Target target) {
  switch (target) {
    case Target::kInformerd: return "informerd";
    case Target::kInformerdOpenLoop: return "informerd (open loop, 1 client thread)";
    case Target::kApiserverCache: return "apiserver (watch cache, RV=0)";
    case Target::kApiserverEtcd: return "apiserver (etcd, no RV)";
  }
  return "";
}

std::vector<int> ParseCounts(const std::string& text) {
  std::vector<int> counts;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    int count = 0;
    if (absl::SimpleAtoi(part, &count) && count > 0) counts.push_back(count);
  }
  return counts;
}

// Each group of --clients_per_connection callers gets its own connection.
std::shared_ptr<grpc::Channel> NewChannel(const std::string& address, int group) {
  grpc::ChannelArguments arguments;
  // A distinct argument keeps gRPC from sharing one TCP connection.
  arguments.SetInt("informerd.bench.connection", group);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), arguments);
}

v1::ResourceName Pods() {
  v1::ResourceName resource;
  resource.set_version("v1");
  resource.set_resource("pods");
  return resource;
}

// One caller's connection to one target; Call performs one read and says
// whether it succeeded and how many items it returned.
class Caller {
 public:
  virtual ~Caller() = default;
  virtual bool Call(Operation operation, const std::string& name, size_t* items) = 0;
};

class InformerdCaller : public Caller {
 public:
  InformerdCaller(std::shared_ptr<grpc::Channel> channel, std::string namespace_,
                  std::string index_value, std::string label_selector)
      : stub_(v1::Cache::NewStub(std::move(channel))),
        namespace_(std::move(namespace_)),
        index_value_(std::move(index_value)),
        label_selector_(std::move(label_selector)) {}

  bool Call(Operation operation, const std::string& name, size_t* items) override {
    if (operation == Operation::kGet) {
      grpc::ClientContext context;
      v1::GetResponse response;
      if (!stub_->Get(&context, GetRequest(namespace_, name), &response).ok()) return false;
      *items = 1;
      return true;
    }
    // Pages are capped in bytes (below gRPC's 4 MiB message limit), so a
    // List of many objects takes several calls, as for any client.
    v1::ListRequest request = ListRequest(operation, namespace_, index_value_, label_selector_);
    *items = 0;
    do {
      grpc::ClientContext page_context;
      v1::ListResponse response;
      if (!stub_->List(&page_context, request, &response).ok()) return false;
      *items += response.items_size();
      request.set_continue_token(response.continue_token());
    } while (!request.continue_token().empty());
    return true;
  }

  static v1::GetRequest GetRequest(const std::string& namespace_, const std::string& name) {
    v1::GetRequest request;
    *request.mutable_resource() = Pods();
    request.set_namespace_(namespace_);
    request.set_name(name);
    return request;
  }

  static v1::ListRequest ListRequest(Operation operation, const std::string& namespace_,
                                     const std::string& index_value,
                                     const std::string& label_selector) {
    v1::ListRequest request;
    *request.mutable_resource() = Pods();
    request.set_namespace_(namespace_);
    if (operation == Operation::kListIndex) {
      request.set_index_name("spec.nodeName");
      request.set_index_value(index_value);
    } else {
      request.set_label_selector(label_selector);
    }
    return request;
  }

 private:
  std::unique_ptr<v1::Cache::Stub> stub_;
  const std::string namespace_;
  const std::string index_value_;
  const std::string label_selector_;
};

class ApiserverCaller : public Caller {
 public:
  ApiserverCaller(const std::string& url, const std::string& ca_file, const std::string& token,
                  bool from_cache, std::string namespace_, const std::string& index_value,
                  const std::string& label_selector)
      : client_(url),
        version_(from_cache ? "resourceVersion=0" : ""),
        pods_(absl::StrCat("/api/v1/namespaces/", namespace_, "/pods")),
        index_query_(absl::StrCat("fieldSelector=",
                                  httplib::detail::encode_query_param(
                                      absl::StrCat("spec.nodeName=", index_value)))),
        label_query_(absl::StrCat("labelSelector=",
                                  httplib::detail::encode_query_param(label_selector))) {
    client_.set_ca_cert_path(ca_file.c_str());
    client_.set_bearer_token_auth(token.c_str());
    client_.set_keep_alive(true);
    // Queued Lists of a loaded apiserver take seconds; a timeout would turn
    // them into errors instead of latency.
    client_.set_read_timeout(120, 0);
  }

  bool Call(Operation operation, const std::string& name, size_t* items) override {
    std::string path;
    switch (operation) {
      case Operation::kGet:
        path = absl::StrCat(pods_, "/", name, version_.empty() ? "" : "?", version_);
        break;
      case Operation::kListIndex:
        path = absl::StrCat(pods_, "?", index_query_, version_.empty() ? "" : "&", version_);
        break;
      case Operation::kListLabel:
        path = absl::StrCat(pods_, "?", label_query_, version_.empty() ? "" : "&", version_);
        break;
    }
    auto response = client_.Get(path.c_str(), {{"Accept", "application/json"}});
    if (!response || response->status != 200) return false;
    // Items are counted by their uid, without decoding the JSON: a pod has
    // one uid, in its metadata.
    size_t count = 0;
    for (size_t at = response->body.find("\"uid\":"); at != std::string::npos;
         at = response->body.find("\"uid\":", at + 1)) {
      ++count;
    }
    *items = count;
    return true;
  }

 private:
  httplib::Client client_;
  const std::string version_;
  const std::string pods_;
  const std::string index_query_;
  const std::string label_query_;
};

struct Row {
  Operation operation;
  Target target;
  int clients = 0;
  double offered_rate = 0;  // requests/s in total; 0: closed loop
  double requests_per_second = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  size_t errors = 0;
  size_t items = 0;  // per response, from the last success
  double server_cpu_ms_per_request = -1;
};

// Throughput and latency from the measured window's latencies (ns), and
// the server's CPU per request from its stats around the window.
void SetMeasurements(std::vector<int64_t>* latencies_ns, const ProcStats& cpu_before,
                     const ProcStats& cpu_after, Row* row) {
  row->requests_per_second = latencies_ns->size() / absl::GetFlag(FLAGS_seconds);
  row->p50_ms = Percentile(latencies_ns, 0.50) / 1e6;
  row->p99_ms = Percentile(latencies_ns, 0.99) / 1e6;
  if (cpu_before.ok && cpu_after.ok && !latencies_ns->empty()) {
    row->server_cpu_ms_per_request =
        (cpu_after.cpu_seconds - cpu_before.cpu_seconds) * 1e3 / latencies_ns->size();
  }
}

class Benchmark {
 public:
  Benchmark() : Benchmark(ApiserverTargetFromFlags()) {}
  explicit Benchmark(ApiserverTarget apiserver)
      : address_(absl::GetFlag(FLAGS_informerd_address)),
        url_(std::move(apiserver.url)),
        ca_file_(std::move(apiserver.ca_file)),
        token_(std::move(apiserver.token)),
        namespace_(std::move(apiserver.namespace_)),
        index_value_(absl::GetFlag(FLAGS_index_value)),
        label_selector_(absl::GetFlag(FLAGS_label_selector)) {}

  // Reads the names of every pod of the namespace from informerd (paged).
  bool LoadNames() {
    auto stub = v1::Cache::NewStub(
        grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()));
    std::string continue_token;
    do {
      grpc::ClientContext context;
      v1::ListRequest request;
      *request.mutable_resource() = Pods();
      request.set_namespace_(namespace_);
      request.set_continue_token(continue_token);
      v1::ListResponse response;
      grpc::Status status = stub->List(&context, request, &response);
      if (!status.ok()) {
        std::fprintf(stderr, "informerd List: %s\n", status.error_message().c_str());
        return false;
      }
      for (const v1::Object& object : response.items()) names_.push_back(object.name());
      continue_token = response.continue_token();
    } while (!continue_token.empty());
    return !names_.empty();
  }

  size_t objects() const { return names_.size(); }

  // `offered_rate`: requests/s in total, spread evenly over the callers; 0:
  // each caller calls again as soon as it has an answer.
  Row Run(Operation operation, Target target, int clients, double offered_rate) {
    std::vector<std::unique_ptr<Caller>> callers;
    std::shared_ptr<grpc::Channel> channel;
    const int per_connection = std::max(1, absl::GetFlag(FLAGS_clients_per_connection));
    for (int i = 0; i < clients; ++i) {
      if (target == Target::kInformerd) {
        if (i % per_connection == 0) channel = NewChannel(address_, i / per_connection);
        callers.push_back(std::make_unique<InformerdCaller>(channel, namespace_, index_value_,
                                                            label_selector_));
      } else {
        callers.push_back(std::make_unique<ApiserverCaller>(
            url_, ca_file_, token_, target == Target::kApiserverCache, namespace_, index_value_,
            label_selector_));
      }
    }

    const pid_t pid = target == Target::kInformerd ? absl::GetFlag(FLAGS_informerd_pid)
                                                   : absl::GetFlag(FLAGS_apiserver_pid);
    const int64_t start_ns = SteadyNanos();
    const int64_t measure_ns =
        start_ns + static_cast<int64_t>(absl::GetFlag(FLAGS_warmup_seconds) * 1e9);
    const int64_t end_ns = measure_ns + static_cast<int64_t>(absl::GetFlag(FLAGS_seconds) * 1e9);
    std::vector<std::vector<int64_t>> latencies(clients);
    std::vector<size_t> errors(clients, 0);
    std::vector<size_t> items(clients, 0);
    std::atomic<bool> measuring{false};
    ProcStats cpu_before;
    std::vector<std::thread> threads;
    for (int i = 0; i < clients; ++i) {
      threads.emplace_back([&, i] {
        std::mt19937_64 random(i + 1);
        std::uniform_int_distribution<size_t> pick(0, names_.size() - 1);
        const int64_t interval_ns =
            offered_rate > 0 ? static_cast<int64_t>(1e9 * clients / offered_rate) : 0;
        int64_t scheduled_ns = start_ns + interval_ns * i / clients;
        for (int64_t now = SteadyNanos(); now < end_ns; now = SteadyNanos()) {
          if (interval_ns > 0) {
            if (scheduled_ns >= end_ns) break;
            if (scheduled_ns > now) {
              std::this_thread::sleep_for(std::chrono::nanoseconds(scheduled_ns - now));
            }
            now = scheduled_ns;
            scheduled_ns += interval_ns;
          }
          size_t count = 0;
          const bool ok = callers[i]->Call(operation, names_[pick(random)], &count);
          const int64_t done = SteadyNanos();
          // A call counts in the window it started in.
          if (now < measure_ns) continue;
          if (ok) {
            latencies[i].push_back(done - now);
            items[i] = count;
          } else {
            ++errors[i];
          }
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(measure_ns - SteadyNanos()));
    cpu_before = ReadProcStats(pid);
    std::this_thread::sleep_for(std::chrono::nanoseconds(end_ns - SteadyNanos()));
    const ProcStats cpu_after = ReadProcStats(pid);
    for (std::thread& thread : threads) thread.join();

    Row row{operation, target, clients, offered_rate};
    std::vector<int64_t> all;
    for (int i = 0; i < clients; ++i) {
      all.insert(all.end(), latencies[i].begin(), latencies[i].end());
      row.errors += errors[i];
      row.items = std::max(row.items, items[i]);
    }
    SetMeasurements(&all, cpu_before, cpu_after, &row);
    return row;
  }

  // One thread issues calls (a Get, or the floor: a health check, which
  // the same server answers without work) every 1/rate seconds through
  // gRPC's callback API; a call due while `max_in_flight` are outstanding
  // waits, and its latency, from the scheduled start, counts the wait.
  // Responses are checked for status only, not decoded.
  Row RunOpenLoop(Operation operation, int max_in_flight, double rate) {
    const int per_connection = std::max(1, absl::GetFlag(FLAGS_clients_per_connection));
    std::vector<std::unique_ptr<grpc::GenericStub>> stubs;
    for (int group = 0; group * per_connection < max_in_flight; ++group) {
      stubs.push_back(std::make_unique<grpc::GenericStub>(NewChannel(address_, group)));
    }
    const std::string method = operation == Operation::kGet
                                   ? "/informerd.v1.Cache/Get"
                                   : "/grpc.health.v1.Health/Check";
    struct Call {
      grpc::ClientContext context;
      grpc::ByteBuffer request;
      grpc::ByteBuffer response;
      int64_t scheduled_ns = 0;
    };
    std::mutex mutex;
    std::condition_variable changed;
    int in_flight = 0;
    std::vector<int64_t> latencies;
    size_t errors = 0;
    size_t items = 0;

    const pid_t pid = absl::GetFlag(FLAGS_informerd_pid);
    const int64_t start_ns = SteadyNanos();
    const int64_t measure_ns =
        start_ns + static_cast<int64_t>(absl::GetFlag(FLAGS_warmup_seconds) * 1e9);
    const int64_t end_ns = measure_ns + static_cast<int64_t>(absl::GetFlag(FLAGS_seconds) * 1e9);
    const int64_t interval_ns = static_cast<int64_t>(1e9 / rate);
    std::mt19937_64 random(1);
    std::uniform_int_distribution<size_t> pick(0, names_.size() - 1);
    ProcStats cpu_before;
    bool measuring = false;
    size_t issued = 0;
    for (int64_t scheduled_ns = start_ns; scheduled_ns < end_ns;
         scheduled_ns += interval_ns, ++issued) {
      if (!measuring && scheduled_ns >= measure_ns) {
        cpu_before = ReadProcStats(pid);
        measuring = true;
      }
      const int64_t now = SteadyNanos();
      if (scheduled_ns > now) {
        std::this_thread::sleep_for(std::chrono::nanoseconds(scheduled_ns - now));
      }
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return in_flight < max_in_flight; });
        ++in_flight;
      }
      Call* call = new Call;
      call->scheduled_ns = scheduled_ns;
      // An empty HealthCheckRequest asks about the server as a whole.
      const std::string request =
          operation == Operation::kGet
              ? InformerdCaller::GetRequest(namespace_, names_[pick(random)]).SerializeAsString()
              : std::string();
      grpc::Slice slice(request);
      call->request = grpc::ByteBuffer(&slice, 1);
      auto done = [&, call](grpc::Status status) {
        const int64_t done_ns = SteadyNanos();
        const int64_t scheduled_ns = call->scheduled_ns;
        delete call;
        // Notified under the lock: once in_flight reaches 0 the waiting
        // thread returns and destroys `changed`.
        std::lock_guard<std::mutex> lock(mutex);
        if (scheduled_ns >= measure_ns) {
          if (status.ok()) {
            latencies.push_back(done_ns - scheduled_ns);
            items = 1;
          } else {
            ++errors;
          }
        }
        --in_flight;
        changed.notify_all();
      };
      stubs[issued % stubs.size()]->UnaryCall(&call->context, method, grpc::StubOptions(),
                                              &call->request, &call->response, done);
    }
    const ProcStats cpu_after = ReadProcStats(pid);
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return in_flight == 0; });
    }

    Row row{operation, Target::kInformerdOpenLoop, max_in_flight, rate};
    row.errors = errors;
    row.items = items;
    SetMeasurements(&latencies, cpu_before, cpu_after, &row);
    return row;
  }

 private:
  const std::string address_;
  const std::string url_;
  const std::string ca_file_;
  const std::string token_;
  const std::string namespace_;
  const std::string index_value_;
  const std::string label_selector_;
  std::vector<std::string> names_;
};

void PrintRow(const Row& row) {
  std::printf("| %s | %s | %d | %s | %.0f | %.3f | %.3f | %zu | %zu | ",
              OperationName(row.operation),
              absl::StrCat(TargetName(row.target), absl::GetFlag(FLAGS_target_note)).c_str(),
              row.clients,
              row.offered_rate > 0 ? absl::StrCat(row.offered_rate).c_str() : "max",
              row.requests_per_second, row.p50_ms,
              row.p99_ms, row.items, row.errors);
  if (row.server_cpu_ms_per_request < 0) {
    std::printf("- |\n");
  } else {
    std::printf("%.3f |\n", row.server_cpu_ms_per_request);
  }
  std::fflush(stdout);
}

int Main() {
  Benchmark benchmark;
  if (!benchmark.LoadNames()) {
    std::fprintf(stderr, "no pods in informerd's cache of namespace %s\n",
                 absl::GetFlag(FLAGS_namespace_).c_str());
    return 1;
  }
  std::printf("read path: %zu pods cached in namespace %s; list_index spec.nodeName=%s, "
              "list_label %s; %.1f s per row after %.1f s warm-up\n\n",
              benchmark.objects(), absl::GetFlag(FLAGS_namespace_).c_str(),
              absl::GetFlag(FLAGS_index_value).c_str(),
              absl::GetFlag(FLAGS_label_selector).c_str(), absl::GetFlag(FLAGS_seconds),
              absl::GetFlag(FLAGS_warmup_seconds));
  std::printf("| operation | target | clients | offered/s | requests/s | p50 ms | p99 ms | "
              "items/response | errors | server CPU ms/request |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<Row> rows;
  size_t total_errors = 0;
  for (Operation operation : {Operation::kGet, Operation::kListIndex, Operation::kListLabel}) {
    for (int clients : ParseCounts(absl::GetFlag(FLAGS_clients))) {
      rows.push_back(benchmark.Run(operation, Target::kInformerd, clients, 0));
      PrintRow(rows.back());
      total_errors += rows.back().errors;
    }
    for (int clients : ParseCounts(absl::GetFlag(FLAGS_paced_clients))) {
      const double list_rate = absl::GetFlag(FLAGS_paced_list_rate);
      rows.push_back(benchmark.Run(operation, Target::kInformerd, clients,
                                   operation == Operation::kGet || list_rate <= 0
                                       ? absl::GetFlag(FLAGS_paced_rate)
                                       : list_rate));
      PrintRow(rows.back());
      total_errors += rows.back().errors;
    }
    for (int clients : ParseCounts(absl::GetFlag(FLAGS_open_loop_clients))) {
      if (operation != Operation::kGet) break;
      for (int rate : ParseCounts(absl::GetFlag(FLAGS_open_loop_rates))) {
        for (Operation open_loop : {Operation::kHealth, Operation::kGet}) {
          rows.push_back(benchmark.RunOpenLoop(open_loop, clients, rate));
          PrintRow(rows.back());
          total_errors += rows.back().errors;
        }
      }
    }
    for (auto [target, counts] :
         {std::pair(Target::kApiserverCache, absl::GetFlag(FLAGS_apiserver_clients)),
          std::pair(Target::kApiserverEtcd, absl::GetFlag(FLAGS_apiserver_etcd_clients))}) {
      for (int clients : ParseCounts(counts)) {
        rows.push_back(benchmark.Run(operation, target, clients, 0));
        PrintRow(rows.back());
        total_errors += rows.back().errors;
      }
    }
  }

  std::printf("\n| operation | clients | vs | p99 informerd / apiserver | p50 informerd / "
              "apiserver | requests/s informerd / apiserver |\n|---|---|---|---|---|---|\n");
  for (const Row& ours : rows) {
    if (ours.target != Target::kInformerd || ours.offered_rate > 0) continue;
    for (const Row& theirs : rows) {
      if (theirs.target == Target::kInformerd || theirs.target == Target::kInformerdOpenLoop ||
          theirs.operation != ours.operation ||
          theirs.clients != ours.clients || theirs.p99_ms <= 0 || theirs.p50_ms <= 0 ||
          theirs.requests_per_second <= 0) {
        continue;
      }
      std::printf("| %s | %d | %s | %.3fx | %.3fx | %.1fx |\n", OperationName(ours.operation),
                  ours.clients, TargetName(theirs.target), ours.p99_ms / theirs.p99_ms,
                  ours.p50_ms / theirs.p50_ms,
                  ours.requests_per_second / theirs.requests_per_second);
    }
  }
  return total_errors == 0 ? 0 : 1;
}

}  // namespace
}  // namespace informerd::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return informerd::bench::Main();
}
