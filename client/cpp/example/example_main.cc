// The uniform example informer of the C++ client (see hack/example.sh and
// line_printer.h): watches one resource, prints one line per handler call,
// and on SIGTERM prints the whole cache and exits 0. Logs go to stderr;
// stdout carries nothing but the lines.

#include <cstdio>
#include <cstdlib>
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
#include "client/cpp/informerctl/interrupt.h"
#include "client/cpp/remote_informer.h"

namespace informerd {
namespace example {
namespace {

// How often the main thread looks up from waiting for the sync to see
// whether it was told to stop; it bounds only the delay of a SIGTERM that
// arrives before the first sync.
constexpr absl::Duration kSyncPollInterval = absl::Milliseconds(100);

// One fwrite per line and a flush, so a reader sees whole lines at once.
// A reader that went away leaves nothing to report to.
void EmitToStdout(const std::string& line) {
  std::string text = line + "\n";
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
      std::fflush(stdout) != 0) {
    std::cerr << "example: writing stdout failed" << std::endl;
    std::_Exit(1);
  }
}

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
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      client::Connect(options);
  if (!channel.ok()) {
    std::cerr << "example: " << channel.status().message() << std::endl;
    return 1;
  }

  absl::Notification terminated;
  interrupts->SetOnInterrupt([&terminated] { terminated.Notify(); });

  client::RemoteInformerOptions informer_options;
  informer_options.resource = args->resource.name;
  informer_options.watch_namespace = args->watch_namespace;
  informer_options.label_selector = args->label_selector;
  client::RemoteInformer informer(*channel, options, std::move(informer_options));
  LinePrinter printer([&informer] { return informer.HasSynced(); },
                      EmitToStdout);
  informer.AddEventHandler(&printer);
  informer.Start();
  while (!terminated.HasBeenNotified()) {
    if (informer.WaitForSync(kSyncPollInterval)) {
      printer.AnnounceSynced();
      break;
    }
  }
  terminated.WaitForNotification();
  // After Stop no handler runs, so the cache printed is final.
  informer.Stop();
  if (absl::Status last = informer.LastError(); !last.ok()) {
    std::cerr << "example: last stream error: " << last << std::endl;
  }
  printer.PrintCache(informer.Lister());
  interrupts->SetOnInterrupt(nullptr);
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
