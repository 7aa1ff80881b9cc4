// Ingest throughput: what the Reflector thread does per byte the apiserver
// sends. Each benchmark reports bytes/s of input JSON per core, the unit of
// client-go's 20-28 MB/s JSON watch decode (kubernetes#138842).
//
//   Parse*      RapidJSON parse alone (the floor of any JSON ingest); the
//               Insitu variant shows what in-situ parsing would gain
//   Build       BuildObject on a parsed pod: validate, strip managedFields,
//               extract labels and field indexes, serialize once
//   *ToStore    parse + BuildObject + ObjectStore::Put (indexes maintained)
//   *ToInformer parse + the Informer's ListWatchSink methods (store, history,
//               relist diff), as the Reflector drives it; list pages go
//               through the Reflector's own ListPageReader and watch frames
//               through the WatchDecoder, in 4 KB reads, as they arrive (the
//               *ToStore watch benchmark too)
//   ListStreamDecoder  splitting a list body into its items alone
//   MetadataProjection building a cached pod's metadata-only form
//               (PROJECTION_METADATA), paid once per object version on the
//               first request for it; counters give both forms' JSON bytes
//   FieldMaskProjection the same for a five-field mask (Object::Masked)
//
// Store and Informer are reused across iterations: list pages replace the
// same keys and watch events modify existing objects, the steady state.
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/pod_fixture.h"
#include "benchmark/benchmark.h"
#include "rapidjson/document.h"
#include "server/cache/field_mask.h"
#include "server/cache/field_mask_registry.h"
#include "server/cache/object_builder.h"
#include "server/cache/object_store.h"
#include "server/informer/informer.h"
#include "server/kube/list_page_reader.h"
#include "server/kube/list_stream_decoder.h"
#include "server/kube/watch_decoder.h"

namespace informerd::bench {
namespace {

constexpr size_t kPageSize = 500;  // client-go's list page size
constexpr size_t kWatchedPods = 1000;
// What cpp-httplib hands the Reflector per read (CPPHTTPLIB_RECV_BUFSIZ).
constexpr size_t kReceiveChunkBytes = 4096;

cache::ObjectSchema PodSchema() {
  cache::ObjectSchema schema;
  schema.field_indexes = {"spec.nodeName", "status.phase"};
  cache::NormalizeSchema(&schema);
  return schema;
}

const std::string& ListPage() {
  static const std::string* page = new std::string(PodListJson(0, kPageSize, kPageSize));
  return *page;
}

// Watch frames whose resourceVersion digits are rewritten per event, so
// versions keep increasing without regenerating the frames. Every version
// has kVersionDigits digits.
constexpr uint64_t kFirstVersion = 1000000000000000;
constexpr size_t kVersionDigits = 16;

struct WatchFrames {
  std::vector<std::string> frames;
  std::vector<size_t> version_offsets;
  uint64_t next_version = kFirstVersion;

  WatchFrames() {
    const std::string marker = absl::StrCat("\"resourceVersion\":\"", kFirstVersion, "\"");
    for (size_t i = 0; i < kWatchedPods; ++i) {
      frames.push_back(PodWatchFrameJson("MODIFIED", i, kFirstVersion));
      version_offsets.push_back(frames.back().find(marker) + marker.size() - kVersionDigits - 1);
    }
  }

  // The next frame, stamped with the next version.
  std::string& Next() {
    size_t i = next_version % frames.size();
    std::string digits = std::to_string(next_version++);
    std::memcpy(&frames[i][version_offsets[i]], digits.data(), kVersionDigits);
    return frames[i];
  }
};

void Parse(rapidjson::Document* document, const std::string& json) {
  document->Parse(json.data(), json.size());
  if (document->HasParseError()) std::abort();
}

// In place, in a copy the caller owns, which the document's strings point
// into: the Reflector's parse without its decoders (FeedListAsReflector and
// FeedWatchFrameAsReflector add those).
void ParseInsituCopy(rapidjson::Document* document, const std::string& json,
                     std::string* buffer) {
  buffer->assign(json);
  document->ParseInsitu(buffer->data());
  if (document->HasParseError()) std::abort();
}

void BM_ParseListPage(benchmark::State& state) {
  const std::string& page = ListPage();
  for (auto _ : state) {
    rapidjson::Document document;
    Parse(&document, page);
    benchmark::DoNotOptimize(document);
  }
  state.SetBytesProcessed(state.iterations() * page.size());
}
BENCHMARK(BM_ParseListPage)->Unit(benchmark::kMillisecond);

void BM_BuildObject(benchmark::State& state) {
  const cache::ObjectSchema schema = PodSchema();
  const std::string pod = PodJson(7, 8);
  rapidjson::Document document;
  size_t cached_json_bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Parse(&document, pod);  // BuildObject consumes its input
    state.ResumeTiming();
    absl::StatusOr<cache::ObjectPtr> object = cache::BuildObject(document, schema);
    if (!object.ok()) std::abort();
    cached_json_bytes = (*object)->json().size();
  }
  state.SetBytesProcessed(state.iterations() * pod.size());
  state.counters["pod_json_bytes"] = pod.size();
  state.counters["cached_json_bytes"] = cached_json_bytes;
}
BENCHMARK(BM_BuildObject)->Unit(benchmark::kMicrosecond);

// Runs `project` (which returns the projected form's JSON size) on fresh
// pods of PodJson(7, 8) in batches, so that each iteration pays a first
// projection and the timer is paused once per batch, not per object; the
// projected size is reported as `counter`.
template <typename Project>
void RunProjection(benchmark::State& state, const char* counter, Project project) {
  cache::ObjectSchema schema = PodSchema();
  schema.api_version = "v1";
  schema.kind = "Pod";
  const std::string pod = PodJson(7, 8);
  constexpr size_t kBatch = 1024;
  std::vector<cache::ObjectPtr> batch;
  size_t next = kBatch;
  rapidjson::Document document;
  size_t full_bytes = 0;
  size_t projected_bytes = 0;
  for (auto _ : state) {
    if (next == kBatch) {
      state.PauseTiming();
      batch.clear();
      for (size_t i = 0; i < kBatch; ++i) {
        Parse(&document, pod);
        absl::StatusOr<cache::ObjectPtr> object = cache::BuildObject(document, schema);
        if (!object.ok()) std::abort();
        batch.push_back(*std::move(object));
      }
      next = 0;
      state.ResumeTiming();
    }
    const cache::Object& object = *batch[next++];
    projected_bytes = project(object);
    full_bytes = object.json().size();
  }
  state.SetBytesProcessed(state.iterations() * full_bytes);
  state.counters["full_json_bytes"] = static_cast<double>(full_bytes);
  state.counters[counter] = static_cast<double>(projected_bytes);
}

void BM_MetadataProjection(benchmark::State& state) {
  RunProjection(state, "metadata_json_bytes",
                [](const cache::Object& object) { return object.MetadataOnly().json().size(); });
}
BENCHMARK(BM_MetadataProjection)->Unit(benchmark::kMicrosecond);

// The node agent's five-field mask of the same pod (Object::Masked with an
// interned mask: the FieldMaskProjection scan and the form's framing), paid
// once per object version and mask.
void BM_FieldMaskProjection(benchmark::State& state) {
  cache::FieldMaskRegistry registry;
  absl::StatusOr<cache::FieldMask> parsed = cache::FieldMask::Parse(
      {"spec.nodeName", "status.podIP", "metadata.labels", "spec.containers.image", "status.phase"});
  if (!parsed.ok()) std::abort();
  std::shared_ptr<const cache::FieldMask> mask = *registry.Intern(*std::move(parsed));
  RunProjection(state, "masked_json_bytes", [&mask](const cache::Object& object) {
    return object.Masked(*mask)->json().size();
  });
}
BENCHMARK(BM_FieldMaskProjection)->Unit(benchmark::kMicrosecond);

void BM_ListPageToStore(benchmark::State& state) {
  const cache::ObjectSchema schema = PodSchema();
  const std::string& page = ListPage();
  cache::ObjectStore store;
  std::string buffer;
  for (auto _ : state) {
    rapidjson::Document document;
    ParseInsituCopy(&document, page, &buffer);
    for (rapidjson::Value& item : document["items"].GetArray()) {
      absl::StatusOr<cache::ObjectPtr> object = cache::BuildObject(item, schema);
      if (!object.ok()) std::abort();
      store.Put(*std::move(object));
    }
  }
  state.SetBytesProcessed(state.iterations() * page.size());
  state.counters["objects/s"] =
      benchmark::Counter(state.iterations() * kPageSize, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ListPageToStore)->Unit(benchmark::kMillisecond);

informer::InformerOptions BenchInformerOptions() {
  informer::InformerOptions options;
  options.schema = PodSchema();
  // The default history (up to 102400 events of ~6 KB pods) would hold
  // gigabytes over a long benchmark run; eviction cost is the same.
  options.history.max_events = 4096;
  return options;
}

// What the Reflector asks the ListStreamDecoder to cut when managedFields
// are stripped (the default).
const std::vector<std::string> kCutManagedFields = {"metadata", "managedFields"};

// A page as the Reflector reads it (kube::ListPageReader, the production
// code): the body arrives in chunks, each item (less its managedFields) is
// parsed in situ and handed to the Informer, the envelope gives the version.
void FeedListAsReflector(const std::string& page, informer::Informer* informer) {
  kube::ListPageReader reader(informer, "list pods", kube::ListStreamDecoder::kDefaultMaxItemBytes,
                              /*cut_managed_fields=*/true);
  informer->OnListStart();
  for (size_t offset = 0; offset < page.size(); offset += kReceiveChunkBytes) {
    if (!reader.Feed(std::string_view(page).substr(offset, kReceiveChunkBytes)).ok()) {
      std::abort();
    }
  }
  absl::StatusOr<kube::ListPageReader::Page> read = reader.Finish();
  if (!read.ok()) std::abort();
  informer->OnListEnd(read->resource_version);
}

void BM_ListStreamDecoder(benchmark::State& state) {
  const std::string& page = ListPage();
  size_t items = 0;
  for (auto _ : state) {
    kube::ListStreamDecoder decoder(kube::ListStreamDecoder::kDefaultMaxItemBytes,
                                    kCutManagedFields);
    for (size_t offset = 0; offset < page.size(); offset += kReceiveChunkBytes) {
      absl::Status status = decoder.Feed(
          std::string_view(page).substr(offset, kReceiveChunkBytes), [&](std::string* item) {
            benchmark::DoNotOptimize(item->data());
            ++items;
            return absl::OkStatus();
          });
      if (!status.ok()) std::abort();
    }
    if (!decoder.Finish().ok()) std::abort();
  }
  if (items != state.iterations() * kPageSize) std::abort();
  state.SetBytesProcessed(state.iterations() * page.size());
}
BENCHMARK(BM_ListStreamDecoder)->Unit(benchmark::kMillisecond);

void BM_ListPageToInformer(benchmark::State& state) {
  const std::string& page = ListPage();
  informer::Informer informer(BenchInformerOptions());
  for (auto _ : state) FeedListAsReflector(page, &informer);
  state.SetBytesProcessed(state.iterations() * page.size());
  state.counters["objects/s"] =
      benchmark::Counter(state.iterations() * kPageSize, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ListPageToInformer)->Unit(benchmark::kMillisecond);

void BM_ParseWatchFrame(benchmark::State& state) {
  WatchFrames frames;
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string& frame = frames.Next();
    rapidjson::Document document;
    Parse(&document, frame);
    benchmark::DoNotOptimize(document);
    bytes += frame.size();
  }
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_ParseWatchFrame)->Unit(benchmark::kMicrosecond);

// What in-situ parsing (strings left in the input buffer, which the watch
// decoder owns anyway) would gain over BM_ParseWatchFrame; the copy of the
// frame into a mutable buffer is included.
void BM_ParseWatchFrameInsitu(benchmark::State& state) {
  WatchFrames frames;
  std::string buffer;
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string& frame = frames.Next();
    buffer.assign(frame);
    rapidjson::Document document;
    document.ParseInsitu(buffer.data());
    if (document.HasParseError()) std::abort();
    benchmark::DoNotOptimize(document);
    bytes += frame.size();
  }
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_ParseWatchFrameInsitu)->Unit(benchmark::kMicrosecond);

// As server/kube/reflector.cc watches: the frame arrives in reads, the
// WatchDecoder assembles it in its buffer, where it is parsed in situ and
// handed to `handle`.
template <typename Handle>
void FeedWatchFrameAsReflector(kube::WatchDecoder* decoder, const std::string& frame,
                               Handle handle) {
  auto on_frame = [&](std::string* text) {
    rapidjson::Document document;
    document.ParseInsitu(text->data());
    if (document.HasParseError()) std::abort();
    handle(document["object"]);
    return absl::OkStatus();
  };
  for (size_t offset = 0; offset < frame.size(); offset += kReceiveChunkBytes) {
    if (!decoder->Feed(std::string_view(frame).substr(offset, kReceiveChunkBytes), on_frame).ok()) {
      std::abort();
    }
  }
  if (!decoder->Feed("\n", on_frame).ok()) std::abort();
}

void BM_WatchFrameToStore(benchmark::State& state) {
  const cache::ObjectSchema schema = PodSchema();
  WatchFrames frames;
  cache::ObjectStore store;
  size_t bytes = 0;
  kube::WatchDecoder decoder;
  for (auto _ : state) {
    const std::string& frame = frames.Next();
    FeedWatchFrameAsReflector(&decoder, frame, [&](rapidjson::Value& object) {
      absl::StatusOr<cache::ObjectPtr> built = cache::BuildObject(object, schema);
      if (!built.ok()) std::abort();
      store.Put(*std::move(built));
    });
    bytes += frame.size();
  }
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_WatchFrameToStore)->Unit(benchmark::kMicrosecond);

void BM_WatchFrameToInformer(benchmark::State& state) {
  WatchFrames frames;
  informer::Informer informer(BenchInformerOptions());
  {
    // The watched pods exist in the cache, so every event is a MODIFIED.
    rapidjson::Document list;
    Parse(&list, PodListJson(0, kWatchedPods, kFirstVersion - 1));
    informer.OnListStart();
    for (rapidjson::Value& item : list["items"].GetArray()) informer.OnListItem(item);
    informer.OnListEnd(list["metadata"]["resourceVersion"].GetString());
  }
  size_t bytes = 0;
  kube::WatchDecoder decoder;
  for (auto _ : state) {
    const std::string& frame = frames.Next();
    FeedWatchFrameAsReflector(&decoder, frame, [&](rapidjson::Value& object) {
      informer.OnWatchEvent(kube::WatchEventType::kModified, object);
    });
    bytes += frame.size();
  }
  if (informer.stats().events_rejected != 0) state.SkipWithError("events were rejected");
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_WatchFrameToInformer)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace informerd::bench
