// ListPageReader: one page of a LIST response, read as its body arrives.
//
// The ListStreamDecoder splits out each item (cutting metadata.managedFields
// when asked, so they are never parsed), the item is parsed in situ in the
// decoder's buffer and handed to the sink (ListWatchSink::OnListItem); at
// the end the envelope gives the page's resourceVersion and continue token.
// This is what the Reflector does with every page, and what the ingest
// benchmark measures.
//
// Items without metadata.name are skipped and counted; an item that is not
// JSON ends the page.
//
// Thread safety: none; one reader per page, on the thread that reads the
// body.
#ifndef INFORMERD_SERVER_KUBE_LIST_PAGE_READER_H_
#define INFORMERD_SERVER_KUBE_LIST_PAGE_READER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/kube/list_stream_decoder.h"
#include "server/kube/list_watch_sink.h"

namespace informerd::kube {

class ListPageReader {
 public:
  struct Page {
    std::string resource_version;
    // Empty on the last page.
    std::string continue_token;
  };

  // `what` names the list in errors and logs ("list pods").
  // REQUIRES: *sink outlives the reader.
  ListPageReader(ListWatchSink* sink, std::string what, size_t max_item_bytes,
                 bool cut_managed_fields);

  // The next bytes of the body. An error (an item that is not JSON or is too
  // large, a malformed body) ends the page: later calls fail too.
  absl::Status Feed(std::string_view chunk);

  // After the whole body: its version and continue token. DATA_LOSS when
  // the body is not a list with items and metadata.resourceVersion (or Feed
  // failed), naming why.
  absl::StatusOr<Page> Finish();

  // Items skipped for want of metadata.name.
  uint64_t rejected_objects() const { return rejected_objects_; }

 private:
  absl::Status HandleItem(std::string* item);

  ListWatchSink* const sink_;
  const std::string what_;
  ListStreamDecoder decoder_;
  absl::Status status_;
  uint64_t rejected_objects_ = 0;
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_LIST_PAGE_READER_H_
