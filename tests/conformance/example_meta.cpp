#include "example_meta.h"

#include <fstream>
#include <stdexcept>

#include "iotap/util/shell_words.h"

namespace iotap::test {

Installcheck read_installcheck(const std::string& meta_path) {
  std::ifstream meta(meta_path);
  constexpr std::string_view kKey = "test_installcheck:";
  for (std::string line; std::getline(meta, line);) {
    if (!line.starts_with(kKey)) continue;
    const std::vector<std::string> words = split_shell_words(line.substr(kKey.size()));
    if (words.size() < 2 || words[0] != "stap" || !words[1].ends_with(".stp")) break;
    Installcheck check;
    for (size_t i = 2; i < words.size(); ++i) {
      if (words[i] == "-T" && i + 1 < words.size()) {
        ++i;
      } else if (words[i] == "-c" && i + 1 < words.size()) {
        check.command = words[++i];
      } else {
        check.args.push_back(words[i]);
      }
    }
    return check;
  }
  throw std::runtime_error(meta_path + ": no 'test_installcheck: stap NAME.stp ...' line");
}

}  // namespace iotap::test
