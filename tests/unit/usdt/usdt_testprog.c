// A program made to be read, not run for its output: its USDT probes have known argument types
// so the tests can check what the note reader makes of them. Probes without a semaphore live
// here; the one with a semaphore is in usdt_testprog_semaphore.c because <sys/sdt.h> decides
// per translation unit whether probes carry one.
#include <stdint.h>
#include <sys/sdt.h>

void iotap_testprog_guarded(uint64_t value);

// noinline and volatile keep the arguments in registers and memory rather than folded into
// immediates, so the notes carry the operand kinds a real program's do.
__attribute__((noinline)) static void emit(int8_t small, uint16_t port, int32_t delta,
                                           uint64_t offset, const char* label, double ratio) {
  volatile int32_t on_stack = delta * 3;
  STAP_PROBE(iotap_test, no_args);
  STAP_PROBE5(iotap_test, typed, small, port, on_stack, offset, label);
  STAP_PROBE2(iotap_test, floating, ratio, (float)ratio);
  STAP_PROBE1(iotap_test, constant, -7);
}

int main(int argc, char** argv) {
  emit((int8_t)-argc, (uint16_t)(argc * 1000), -argc, (uint64_t)argc << 40, argv[0], argc / 3.0);
  iotap_testprog_guarded((uint64_t)argc);
  return 0;
}
