#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/cpp/informerctl/commands.h"
#include "client/cpp/informerctl/errors.h"
#include "client/cpp/informerctl/interrupt.h"
#include "client/cpp/informerctl/resource_lookup.h"
#include "client/cpp/informerctl/watch_format.h"
#include "client/cpp/informerctl/yaml_text.h"

namespace informerd {
namespace informerctl {

namespace {

// Each line is flushed so a consumer reading a pipe sees events as they
// happen.
void PrintLine(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

}  // namespace

int RunWatch(const CommandLine& line) {
  InterruptWatcher interrupts;
  // Until the stream is open there is nothing to end cleanly.
  interrupts.SetOnInterrupt([] { std::_Exit(kExitOk); });
  absl::StatusOr<ResourceTarget> target = ConnectToResource(line);
  if (!target.ok()) return ReportError(target.status());
  informerd::v1::Cache::Stub* const stub = target->stub.get();
  const informerd::v1::ResourceStatus* const resource = &target->resource;

  informerd::v1::WatchRequest request;
  *request.mutable_resource() = resource->resource();
  request.set_namespace_(RequestNamespace(line, resource->namespaced()));
  request.set_label_selector(line.label_selector);
  request.set_field_selector(line.field_selector);
  request.set_resource_version(line.resource_version);
  request.set_send_initial_events(line.initial_events);
  request.set_allow_bookmarks(line.bookmarks);

  WatchLineOptions options;
  options.show_bookmarks = line.bookmarks;
  options.api_version = ApiVersion(resource->resource());
  options.kind = resource->kind();
  options.with_namespace = resource->namespaced() && request.namespace_().empty();

  grpc::ClientContext context;
  absl::Status prepared =
      client::PrepareContext(line.connection, &context, /*streaming=*/true);
  if (!prepared.ok()) return ReportError(prepared);
  interrupts.SetOnInterrupt([&context] { context.TryCancel(); });

  std::unique_ptr<grpc::ClientReader<informerd::v1::WatchEvent>> reader =
      stub->Watch(&context, request);
  const bool table = line.output == OutputFormat::kTable ||
                     line.output == OutputFormat::kWide;
  WatchTable rows(resource->resource(), options,
                  line.output == OutputFormat::kWide);
  if (table) PrintLine(rows.Header());
  absl::Status print_error;
  informerd::v1::WatchEvent event;
  while (reader->Read(&event)) {
    std::optional<std::string> text;
    if (table) {
      text = rows.Row(event, absl::Now());
    } else {
      text = FormatWatchEventJson(event, options);
      if (text.has_value() && line.output == OutputFormat::kYaml) {
        // One YAML document per event, as kubectl -w -o yaml separates them.
        absl::StatusOr<std::string> yaml = JsonToYaml(*text);
        if (!yaml.ok()) {
          print_error = yaml.status();
          context.TryCancel();
          break;
        }
        text = absl::StrCat("---\n", *yaml);
        text->pop_back();
      }
    }
    if (text.has_value()) PrintLine(*text);
  }
  grpc::Status status = reader->Finish();
  interrupts.SetOnInterrupt(nullptr);
  if (!print_error.ok()) return ReportError(print_error);
  if (interrupts.interrupted()) return kExitOk;
  if (!status.ok()) return ReportError(FromGrpcStatus(status));
  return kExitOk;
}

}  // namespace informerctl
}  // namespace informerd
