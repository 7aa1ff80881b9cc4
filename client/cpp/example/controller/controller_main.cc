// The C++ client's example controller (see secret_ref_controller.h) as a
// program: runs against an informerd serving configmaps and secrets, prints
// the controller's lines on stdout, and exits 0 on SIGTERM once every
// informer and handler has stopped. Logs go to stderr.
//
//   controller --server=ADDR [--namespace=NS] [--resync=30s]
//              [--audit_delay=1s] [--token_file=F] [--ca_file=F]

#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/time/time.h"
#include "client/cpp/connection.h"
#include "client/cpp/example/controller/secret_ref_controller.h"
#include "client/cpp/example/stdout_line.h"
#include "client/cpp/informerctl/interrupt.h"
#include "client/cpp/shared_informer_factory.h"

ABSL_FLAG(std::string, server, "", "informerd's gRPC address (required)");
ABSL_FLAG(std::string, namespace, "", "the namespace to watch; empty: all");
ABSL_FLAG(absl::Duration, resync, absl::Seconds(30),
          "the reconcile handler's resync period (0: none)");
ABSL_FLAG(absl::Duration, audit_delay, absl::Seconds(1),
          "what the slow audit handler takes per event");
ABSL_FLAG(std::string, token_file, "", "a bearer token file");
ABSL_FLAG(std::string, ca_file, "",
          "PEM CA certificates to verify informerd's TLS certificate with; "
          "empty: plaintext");

namespace informerd {
namespace example {
namespace {

constexpr absl::Duration kSyncTimeout = absl::Minutes(2);

int Run(informerctl::InterruptWatcher* interrupts) {
  client::ConnectionOptions connection;
  connection.address = absl::GetFlag(FLAGS_server);
  connection.token_file = absl::GetFlag(FLAGS_token_file);
  connection.ca_file = absl::GetFlag(FLAGS_ca_file);
  connection.tls = !connection.ca_file.empty();
  // Without --ca_file the controller talks to a local server (the
  // integration test); elsewhere it is given the server's CA.
  connection.allow_token_without_tls = !connection.tls;
  if (connection.address.empty()) {
    std::cerr << "controller: --server is required" << std::endl;
    return 2;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      client::Connect(connection);
  if (!channel.ok()) {
    std::cerr << "controller: " << channel.status() << std::endl;
    return 1;
  }
  client::SharedInformerFactory factory(*channel, connection);
  SecretRefControllerOptions options;
  options.watch_namespace = absl::GetFlag(FLAGS_namespace);
  options.resync_period = absl::GetFlag(FLAGS_resync);
  options.audit_delay = absl::GetFlag(FLAGS_audit_delay);
  options.emit = EmitLineToStdout;
  SecretRefController controller(&factory, options);
  absl::Status running = controller.Run(kSyncTimeout);
  if (!running.ok()) {
    std::cerr << "controller: " << running << std::endl;
    return 1;
  }
  controller.AnnounceLateSynced(kSyncTimeout);
  interrupts->WaitForInterrupt();
  factory.Shutdown();
  controller.Stop();
  return 0;
}

}  // namespace
}  // namespace example
}  // namespace informerd

int main(int argc, char** argv) {
  // Before gRPC starts any thread (see InterruptWatcher).
  informerd::informerctl::InterruptWatcher interrupts;
  absl::ParseCommandLine(argc, argv);
  return informerd::example::Run(&interrupts);
}
