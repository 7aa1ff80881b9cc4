// kubectl-style plain text columns: each cell left-aligned and padded to its
// column's width plus three spaces, at least six wide; the last cell of a
// line unpadded.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_TABLE_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_TABLE_H_

#include <string>
#include <vector>

namespace informerd {
namespace informerctl {

// Every row measured first; one line per row, each ending in '\n'. Rows may
// have different lengths.
std::string FormatTable(const std::vector<std::vector<std::string>>& rows);

// For rows that arrive one at a time (a watch): each line is padded to the
// widest cell seen so far in its column, so columns stay aligned until a
// wider cell arrives and never shrink.
//
// Thread safety: not thread-safe.
class StreamTable {
 public:
  // The line for row, without a newline.
  std::string Line(const std::vector<std::string>& row);

 private:
  std::vector<size_t> widths_;
};

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_TABLE_H_
