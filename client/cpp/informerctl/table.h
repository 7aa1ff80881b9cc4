// FormatTable: kubectl-style plain text columns.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_TABLE_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_TABLE_H_

#include <string>
#include <vector>

namespace informerd {
namespace informerctl {

// Left-aligned columns, three spaces apart, no trailing spaces; one line per
// row, each ending in '\n'. Rows may have different lengths.
std::string FormatTable(const std::vector<std::vector<std::string>>& rows);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_TABLE_H_
