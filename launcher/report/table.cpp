#include "table.h"

#include <algorithm>

namespace iotap::report {

std::string Table::render(const std::string& indent) const {
  std::vector<size_t> width(columns_.size(), 0);
  for (size_t c = 0; c < columns_.size(); ++c) width[c] = columns_[c].title.size();
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());

  std::string out;
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text = indent;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string& cell = c < cells.size() ? cells[c] : std::string();
      const std::string pad(width[c] - cell.size(), ' ');
      if (c > 0) text += "  ";
      text += columns_[c].align == Align::right ? pad + cell : cell + pad;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  };
  std::vector<std::string> titles;
  titles.reserve(columns_.size());
  for (const auto& column : columns_) titles.push_back(column.title);
  line(titles);
  for (const auto& row : rows_) line(row);
  return out;
}

}  // namespace iotap::report
