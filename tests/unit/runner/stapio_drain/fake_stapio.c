// A stand-in for stapio, for stapio_drain_test: built as "stapio" so that the preloaded
// stapio_drain.so takes it for stapio. It opens DIR/trace0..trace(N-1) as stapio opens its
// relay files (openat, O_RDONLY | O_NONBLOCK). With "readers", it then runs a reader thread per
// file as stapio 4.8 does (ppoll with only SIGUSR2 let through, the 8-byte header, the payload,
// one write(2) per message) and stops them as stapio does at the end of a run (a stop flag,
// SIGUSR2, join); it says on standard error how many messages its readers took themselves and
// how many read and write system calls the process made ("readers took M; syscalls: read R write
// W", from /proc/self/io). Without, its readers were starved: it reads nothing. Either way it
// prints its own LD_PRELOAD (what the traced program it starts would inherit) on standard error
// and closes the files, as stapio does when the run ends.
//   stapio DIR N [readers]
#define _GNU_SOURCE  // NOLINT(bugprone-reserved-identifier): ppoll
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kMaxFiles = 64 };

static int fds[kMaxFiles];
static volatile int stop_threads;
static unsigned long taken;  // messages the readers read and wrote themselves
static pthread_mutex_t taken_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_sigusr2(int signal) {
  (void)signal;
}

static void* reader_thread(void* argument) {
  const int fd = fds[(intptr_t)argument];
  sigset_t during_poll;
  sigfillset(&during_poll);
  sigdelset(&during_poll, SIGUSR2);
  struct pollfd poll_fd = {.fd = fd, .events = POLLIN};
  char payload[128 * 1024];
  do {
    if (ppoll(&poll_fd, 1, NULL, &during_poll) < 0 && stop_threads) break;
    uint32_t header[2];
    if (read(fd, header, sizeof header) != sizeof header) continue;
    if (header[1] == 0 || header[1] > sizeof payload) continue;
    if (read(fd, payload, header[1]) != (ssize_t)header[1]) continue;
    if (write(STDOUT_FILENO, payload, header[1]) != (ssize_t)header[1]) break;
    pthread_mutex_lock(&taken_lock);
    ++taken;
    pthread_mutex_unlock(&taken_lock);
  } while (!stop_threads);
  return NULL;
}

static void print_system_calls(void) {
  FILE* io = fopen("/proc/self/io", "r");
  if (io == NULL) return;
  char name[32];
  unsigned long long value = 0;
  unsigned long long reads = 0;
  unsigned long long writes = 0;
  while (fscanf(io, "%31s %llu", name, &value) == 2) {
    if (strcmp(name, "syscr:") == 0) reads = value;
    if (strcmp(name, "syscw:") == 0) writes = value;
  }
  fclose(io);
  fprintf(stderr, "readers took %lu; syscalls: read %llu write %llu\n", taken, reads, writes);
}

static int run_readers(int count) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_sigusr2;
  sigaction(SIGUSR2, &action, NULL);
  // The readers start with SIGUSR2 blocked, so that a stop signalled before their first poll
  // waits for it.
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &blocked, NULL);
  pthread_t readers[kMaxFiles];
  for (int i = 0; i < count; ++i) {
    if (pthread_create(&readers[i], NULL, reader_thread, (void*)(intptr_t)i) != 0) return -1;
  }
  stop_threads = 1;
  for (int i = 0; i < count; ++i) pthread_kill(readers[i], SIGUSR2);
  for (int i = 0; i < count; ++i) pthread_join(readers[i], NULL);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) return 2;
  const int directory = open(argv[1], O_RDONLY | O_DIRECTORY);
  const int count = atoi(argv[2]);
  const int readers = argc == 4 && strcmp(argv[3], "readers") == 0;
  if (directory < 0 || count <= 0 || count > kMaxFiles) return 2;
  for (int i = 0; i < count; ++i) {
    char name[32];
    snprintf(name, sizeof name, "trace%d", i);
    fds[i] = openat(directory, name, O_RDONLY | O_NONBLOCK);
    if (fds[i] < 0) return 3;
  }
  if (readers && run_readers(count) != 0) return 4;
  const char* preload = getenv("LD_PRELOAD");
  fprintf(stderr, "LD_PRELOAD=%s\n", preload != NULL ? preload : "(unset)");
  for (int i = 0; i < count; ++i) close(fds[i]);
  if (readers) print_system_calls();
  close(directory);
  return 0;
}
