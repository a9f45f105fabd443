// Replays the fuzz corpus, plus deterministic mutations of it, through the fuzz target. This
// keeps the fuzzer's findings as a regression test in ordinary builds (g++, no libFuzzer), and
// under ASan it catches out-of-bounds reads the way the fuzzer would.
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
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

// The damage that matters to a note reader: wrong sizes, lost NULs, cut data.
void mutate(Bytes& input, Random& random) {
  if (input.size() < 2) {
    input.push_back(static_cast<std::uint8_t>(random.next()));
    return;
  }
  const std::size_t at = 1 + random.below(input.size() - 1);  // keep the control byte
  switch (random.below(6)) {
    case 0:
      input[at] ^= static_cast<std::uint8_t>(1U << random.below(8));
      break;
    case 1:
      input[at] = static_cast<std::uint8_t>(random.next());
      break;
    case 2: {  // a 32-bit field set to something large, as a corrupted namesz/descsz would be
      constexpr std::array<std::uint32_t, 6> kValues = {0xffffffffU, 0x7fffffffU, 0x10000U,
                                                        0,           1,           23};
      const std::uint32_t value = kValues.at(random.below(kValues.size()));
      for (std::size_t i = 0; i < 4 && at + i < input.size(); ++i) {
        input[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
      }
      break;
    }
    case 3:
      input.resize(at);
      break;
    case 4:
      std::replace(input.begin() + 1, input.end(), std::uint8_t{0}, std::uint8_t{'A'});
      break;
    default:
      input.insert(input.begin() + static_cast<std::ptrdiff_t>(at), input[at]);
      break;
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
