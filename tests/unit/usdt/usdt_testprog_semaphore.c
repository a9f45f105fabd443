// The semaphore probe: a tracer raises iotap_test_guarded_semaphore to switch the probe on,
// so the program skips computing its arguments when nobody listens.
#define _SDT_HAS_SEMAPHORES 1
#include <stdint.h>
#include <sys/sdt.h>

// The section name is the convention tracers and sdt.h's own dtrace(1) output use.
unsigned short iotap_test_guarded_semaphore __attribute__((unused))
__attribute__((section(".probes")));

void iotap_testprog_guarded(uint64_t value);

void iotap_testprog_guarded(uint64_t value) {
  if (iotap_test_guarded_semaphore) {
    STAP_PROBE2(iotap_test, guarded, value, (int16_t)value);
  }
}
