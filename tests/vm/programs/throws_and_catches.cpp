// A program made to be traced by `iotap callgraph`: it throws in a nested call and catches the
// exception two callers up, then goes on with calls that return normally, and exits 0.
//
//   main -> run -> parse_all -> parse_one ("7")          returns 7
//                            -> parse_one ("x")          throws std::invalid_argument
//           run catches it, then -> after_the_catch      returns 42
//
// Untraced it prints "caught: not a digit: x" and "after: 42" and exits 0; under callgraph it
// must do the same (return probes on parse_one and parse_all must not break the unwinding).
#include <cstdio>
#include <stdexcept>
#include <string>

// Every function a real call of its own (no inlining, no clones such as "run.constprop.0").
#if defined(__clang__)
#define TRACED __attribute__((noinline))
#else
#define TRACED __attribute__((noipa))
#endif

namespace {

TRACED int parse_one(const char* text) {
  if (text[0] < '0' || text[0] > '9' || text[1] != '\0')
    throw std::invalid_argument(std::string("not a digit: ") + text);
  return text[0] - '0';
}

TRACED int parse_all(const char* first, const char* second) {
  const std::string keep_alive = "a destructor runs while unwinding this frame";
  const int sum = parse_one(first) + parse_one(second);
  return sum + static_cast<int>(keep_alive.size() == 0);
}

TRACED int after_the_catch(int value) {
  return value * 6;
}

TRACED int run(const char* first, const char* second) {
  try {
    return parse_all(first, second);
  } catch (const std::invalid_argument& error) {
    std::printf("caught: %s\n", error.what());
  }
  const int after = after_the_catch(7);
  std::printf("after: %d\n", after);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int sum = run(argc > 1 ? argv[1] : "7", argc > 2 ? argv[2] : "x");
  std::fflush(stdout);
  return sum;
}
