#include "client/cpp/informerctl/table.h"

#include <algorithm>

namespace informerd {
namespace informerctl {

namespace {

constexpr size_t kPadding = 3;
constexpr size_t kMinWidth = 6;

void Widen(const std::vector<std::string>& row, std::vector<size_t>* widths) {
  if (widths->size() < row.size()) widths->resize(row.size(), kMinWidth);
  for (size_t i = 0; i < row.size(); ++i) {
    (*widths)[i] = std::max((*widths)[i], row[i].size() + kPadding);
  }
}

void AppendLine(const std::vector<std::string>& row,
                const std::vector<size_t>& widths, std::string* text) {
  for (size_t i = 0; i < row.size(); ++i) {
    *text += row[i];
    if (i + 1 < row.size()) text->append(widths[i] - row[i].size(), ' ');
  }
}

}  // namespace

std::string FormatTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const std::vector<std::string>& row : rows) Widen(row, &widths);
  std::string text;
  for (const std::vector<std::string>& row : rows) {
    AppendLine(row, widths, &text);
    text += '\n';
  }
  return text;
}

std::string StreamTable::Line(const std::vector<std::string>& row) {
  Widen(row, &widths_);
  std::string text;
  AppendLine(row, widths_, &text);
  return text;
}

}  // namespace informerctl
}  // namespace informerd
