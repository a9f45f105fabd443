// A stand-in for stapio's end of a run, for stapio_drain_test: built as "stapio" so that the
// preloaded stapio_drain.so takes it for stapio. It opens DIR/trace0..trace(N-1) as stapio
// opens its relay files (openat, O_RDONLY | O_NONBLOCK), reads nothing (its readers were
// starved), prints its own LD_PRELOAD (what the traced program it starts would inherit) on
// standard error, and closes the files, as stapio does when the run ends.
//   stapio DIR N
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const int directory = open(argv[1], O_RDONLY | O_DIRECTORY);
  const int count = atoi(argv[2]);
  if (directory < 0 || count <= 0 || count > 64) return 2;
  int fds[64];
  for (int i = 0; i < count; ++i) {
    char name[32];
    snprintf(name, sizeof name, "trace%d", i);
    fds[i] = openat(directory, name, O_RDONLY | O_NONBLOCK);
    if (fds[i] < 0) return 3;
  }
  const char* preload = getenv("LD_PRELOAD");
  fprintf(stderr, "LD_PRELOAD=%s\n", preload != NULL ? preload : "(unset)");
  for (int i = 0; i < count; ++i) close(fds[i]);
  close(directory);
  return 0;
}
