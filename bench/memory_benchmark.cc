// Steady memory per cached object: fills an Informer with N ~10 KB pods (as
// the Reflector does, through OnListStart/OnListItem/OnListEnd with pages of
// 500), then prints, per object, the heap and RSS growth next to the size of
// the compact transformed JSON the cache must hold at the least. Label and
// field indexes (spec.nodeName, status.phase) are included.
//
// Usage: memory_benchmark [N ...]   (default: 10000 100000)
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench/pod_fixture.h"
#include "rapidjson/document.h"
#include "server/cache/filter.h"
#include "server/informer/informer.h"

namespace informerd::bench {
namespace {

constexpr size_t kPageSize = 500;

size_t HeapBytes() {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return pages_resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

struct Measurement {
  size_t objects = 0;
  double json_bytes = 0;        // compact transformed JSON, per object
  double heap_bytes = 0;        // malloc'd bytes, per object
  double resident_bytes = 0;    // RSS growth, per object
  double accounted_bytes = 0;   // the Informer's own ApproximateBytes, per object
};

void FillPage(informer::Informer* informer, size_t first, size_t count, uint64_t version) {
  rapidjson::Document page;
  std::string json = PodListJson(first, count, version);
  page.Parse(json.data(), json.size());
  if (page.HasParseError()) std::abort();
  for (rapidjson::Value& item : page["items"].GetArray()) informer->OnListItem(item);
}

Measurement Measure(size_t objects) {
  informer::InformerOptions options;
  options.schema.field_indexes = {"spec.nodeName", "status.phase"};
  cache::NormalizeSchema(&options.schema);

  malloc_trim(0);
  const size_t heap_before = HeapBytes();
  const size_t resident_before = ResidentBytes();
  auto informer = std::make_unique<informer::Informer>(options);
  informer->OnListStart();
  for (size_t first = 0; first < objects; first += kPageSize) {
    FillPage(informer.get(), first, std::min(kPageSize, objects - first), objects + 1);
  }
  informer->OnListEnd(std::to_string(objects + 1));
  malloc_trim(0);
  const size_t heap_after = HeapBytes();
  const size_t resident_after = ResidentBytes();

  Measurement m;
  m.objects = informer->stats().objects;
  m.accounted_bytes = static_cast<double>(informer->stats().object_bytes) / m.objects;
  absl::StatusOr<informer::Informer::Page> all =
      informer->List(cache::Filter{}, 0, "", 0, SIZE_MAX);
  if (!all.ok()) std::abort();
  size_t json_bytes = 0;
  for (const cache::ObjectPtr& object : all->items) json_bytes += object->json().size();
  m.json_bytes = static_cast<double>(json_bytes) / m.objects;
  m.heap_bytes = static_cast<double>(heap_after - heap_before) / m.objects;
  m.resident_bytes = static_cast<double>(resident_after - resident_before) / m.objects;
  return m;
}

}  // namespace
}  // namespace informerd::bench

int main(int argc, char** argv) {
  std::vector<size_t> counts;
  for (int i = 1; i < argc; ++i) counts.push_back(std::strtoull(argv[i], nullptr, 10));
  if (counts.empty()) counts = {10000, 100000};
  std::printf("%-8s %10s %10s %10s %10s %10s %12s\n", "objects", "json_B/obj", "heap_B/obj",
              "rss_B/obj", "heap/json", "rss/json", "accounted/obj");
  for (size_t count : counts) {
    if (count == 0) continue;
    informerd::bench::Measurement m = informerd::bench::Measure(count);
    std::printf("%-8zu %10.0f %10.0f %10.0f %9.2fx %9.2fx %12.0f\n", m.objects, m.json_bytes,
                m.heap_bytes, m.resident_bytes, m.heap_bytes / m.json_bytes,
                m.resident_bytes / m.json_bytes, m.accounted_bytes);
    std::fflush(stdout);
  }
  return 0;
}
