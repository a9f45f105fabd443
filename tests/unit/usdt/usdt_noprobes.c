// An ordinary program with no USDT probes: the reader must say so, not fail obscurely.
#include <stdio.h>

int main(void) {
  puts("no probes here");
  return 0;
}
