// Replays a fuzz target's seeds, and deterministic mutations of them, through its harness
// without libFuzzer: every build (g++ included) keeps the corpus, findings and all, as a
// regression test, and a sanitizer build checks each input the way the fuzzer would.
// The mutations are the ones text parsers meet: bytes changed or lost, delimiters where they
// do not belong, numbers too large, a slice repeated (deeper nesting, more lines).
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

using Bytes = std::vector<std::uint8_t>;

// splitmix64: the same mutations on every run and every machine.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15U);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9U;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebU;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

constexpr std::array<std::uint8_t, 20> kDelimiters = {' ', '\n', '\t', '(',  ')',  ',', '*',
                                                      ':', '=',  '[',  ']',  '-',  '0', '9',
                                                      'f', 'x',  0,    0x80, 0xff, '\r'};
constexpr std::array<std::string_view, 6> kNumbers = {
    "18446744073709551615", "18446744073709551616",   "-1", "0",
    "ffffffffffffffff",     "99999999999999999999999"};

void mutate(Bytes& input, Random& random) {
  if (input.empty()) {
    input.push_back(kDelimiters.at(random.below(kDelimiters.size())));
    return;
  }
  const std::size_t at = random.below(input.size());
  const auto at_it = input.begin() + static_cast<std::ptrdiff_t>(at);
  switch (random.below(7)) {
    case 0:
      input[at] ^= static_cast<std::uint8_t>(1U << random.below(8));
      break;
    case 1:
      input[at] = kDelimiters.at(random.below(kDelimiters.size()));
      break;
    case 2: {
      const std::string_view number = kNumbers.at(random.below(kNumbers.size()));
      input.insert(at_it, number.begin(), number.end());
      break;
    }
    case 3:
      input.resize(at);
      break;
    case 4:
      input.erase(at_it, at_it + static_cast<std::ptrdiff_t>(std::min<std::size_t>(
                                     1 + random.below(8), input.size() - at)));
      break;
    default: {  // a slice repeated a few times
      const std::size_t length = 1 + random.below(std::min<std::size_t>(64, input.size() - at));
      const Bytes slice(at_it, at_it + static_cast<std::ptrdiff_t>(length));
      const std::size_t times = 1 + random.below(8);
      for (std::size_t i = 0; i < times; ++i) {
        input.insert(input.begin() + static_cast<std::ptrdiff_t>(at), slice.begin(), slice.end());
      }
      break;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR\n";
    return 2;
  }
  // Sorted, because the mutations below depend on the seeds' order.
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    if (entry.is_regular_file()) {
      paths.push_back(entry.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  std::vector<Bytes> seeds;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (seeds.empty()) {
    std::cerr << "no corpus files in " << argv[1] << '\n';
    return 1;
  }
  std::size_t runs = 0;
  for (const Bytes& seed : seeds) {
    LLVMFuzzerTestOneInput(seed.data(), seed.size());
    ++runs;
  }
  constexpr std::size_t kMutations = 4000;
  Random random(20240601);
  for (std::size_t i = 0; i < kMutations; ++i) {
    Bytes input = seeds[random.below(seeds.size())];
    const std::size_t rounds = 1 + random.below(4);
    for (std::size_t r = 0; r < rounds; ++r) {
      mutate(input, random);
    }
    LLVMFuzzerTestOneInput(input.data(), input.size());
    ++runs;
  }
  std::cout << runs << " inputs from " << seeds.size() << " seeds ran clean\n";
  return 0;
}
