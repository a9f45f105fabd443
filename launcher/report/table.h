#pragma once
// A plain text table: columns padded to their widest cell, numbers to the right.
#include <cstddef>
#include <string>
#include <vector>

namespace iotap::report {

class Table {
 public:
  enum class Align { left, right };
  struct Column {
    std::string title;
    Align align;
  };

  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // Each line starts with `indent`.
  [[nodiscard]] std::string render(const std::string& indent) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace iotap::report
