// The uniform example informer of the C++ client (see hack/example.sh and
// line_printer.h): watches one resource, prints one line per handler call,
// and on SIGTERM prints the whole cache and exits 0. Right after SYNCED it
// adds a second handler to the running informer, whose lines start with
// "LATE " (LATE ADD for every cached object, then LATE SYNCED, then live
// events). Logs go to stderr; stdout carries nothing but the lines.

#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "client/cpp/connection.h"
#include "client/cpp/example/example_args.h"
#include "client/cpp/example/line_printer.h"
#include "client/cpp/example/stdout_line.h"
#include "client/cpp/informerctl/interrupt.h"
#include "client/cpp/remote_informer.h"

namespace informerd {
namespace example {
namespace {

// How often the main thread looks up from waiting for the sync to see
// whether it was told to stop; it bounds only the delay of a SIGTERM that
// arrives before the first sync.
constexpr absl::Duration kSyncPollInterval = absl::Milliseconds(100);

int Run(const std::vector<std::string>& raw_args,
        informerctl::InterruptWatcher* interrupts) {
  absl::StatusOr<ExampleArgs> args = ParseExampleArgs(raw_args);
  if (!args.ok()) {
    std::cerr << "example: " << args.status().message() << "\n"
              << kExampleUsage;
    return 2;
  }
  client::ConnectionOptions options;
  options.address = args->server;
  options.token_file = args->token_file;
  if (!args->ca_file.empty()) {
    options.tls = true;
    options.ca_file = args->ca_file;
  } else {
    // Without --ca-file the example talks to a local server (the e2e
    // suites); in a pod it is given the chart's CA.
    options.allow_token_without_tls = true;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      client::Connect(options);
  if (!channel.ok()) {
    std::cerr << "example: " << channel.status().message() << std::endl;
    return 1;
  }

  client::RemoteInformerOptions informer_options;
  informer_options.resource = args->resource.name;
  informer_options.watch_namespace = args->watch_namespace;
  informer_options.label_selector = args->label_selector;
  client::RemoteInformer informer(*channel, options, std::move(informer_options));
  // Each printer reads its own registration's HasSynced. A handler may be
  // called before AddEventHandler has returned its registration (the late
  // one is, with the cached objects), so it waits for it first.
  struct Registered {
    absl::Notification added;
    client::HandlerRegistration* registration = nullptr;
    bool HasSynced() {
      added.WaitForNotification();
      return registration->HasSynced();
    }
  };
  Registered main_handler, late_handler;
  LinePrinter printer([&main_handler] { return main_handler.HasSynced(); },
                      EmitLineToStdout);
  LinePrinter late_printer(
      "LATE ", [&late_handler] { return late_handler.HasSynced(); },
      EmitLineToStdout);
  auto add = [&informer](Registered* handler, LinePrinter* printer) {
    handler->registration = informer.AddEventHandler(printer);
    handler->added.Notify();
  };
  // Returns false if told to stop first.
  auto wait_synced = [interrupts](Registered* handler) {
    while (!interrupts->interrupted()) {
      if (handler->registration->WaitForSynced(kSyncPollInterval)) return true;
    }
    return false;
  };
  add(&main_handler, &printer);
  informer.Start();
  if (wait_synced(&main_handler)) {
    printer.AnnounceSynced();
    add(&late_handler, &late_printer);
    if (wait_synced(&late_handler)) late_printer.AnnounceSynced();
  }
  interrupts->WaitForInterrupt();
  // After Stop no handler runs (neither printer), so the cache printed is
  // final and no LATE line follows a CACHE line.
  informer.Stop();
  if (absl::Status last = informer.LastError(); !last.ok()) {
    std::cerr << "example: last stream error: " << last << std::endl;
  }
  printer.PrintCache(informer.Lister());
  return 0;
}

}  // namespace
}  // namespace example
}  // namespace informerd

int main(int argc, char** argv) {
  // First, before gRPC starts any thread, so that every thread blocks
  // SIGTERM and only the watcher's thread receives it.
  informerd::informerctl::InterruptWatcher interrupts;
  return informerd::example::Run(std::vector<std::string>(argv + 1, argv + argc),
                                 &interrupts);
}
