// stapio_drain.so: preloaded into SystemTap's stapio, it reads the module's relay files in
// stapio's place (relay_reader.c), many messages at a time, and reads what is left in them when
// a run ends, so that the end of the script's output is not lost.
//
// Why the end: stapio 4.8 (Debian 12) reads the module's per-CPU relay files in one thread per
// CPU, one message per poll. When the run ends it sets a stop flag, signals the readers, joins
// them and closes the files, without reading what is still in them (SystemTap fixed this after
// 4.8, PR31597, with a pause before the stop). A traced program that keeps every CPU busy left
// the readers behind, and that backlog was lost, cut mid-line, with no loss counted anywhere.
//
// This file: the relay files are recorded when stapio opens them ("traceN"); stapio closes them
// only after every reader has been joined, so at the first close relay_reader.c reads them to
// the end and writes what it finds in sequence order, to standard output, where stapio writes.
// With -o or -S stapio writes to files, and the library stays out of the way.
//
// Only stapio is affected: in any other process (staprun, which execs stapio, or nice) the
// wrappers below only pass the call on. In stapio, the library takes itself out of LD_PRELOAD
// at load, so the traced program that stapio starts does not inherit it.
#define _GNU_SOURCE  // NOLINT(bugprone-reserved-identifier): glibc asks for it by this name
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stapio_preload.h"

enum { kMaxRelayFiles = 1024 };

int active;
static int relay_fds[kMaxRelayFiles];
static int relay_count;

static int is_stapio(void) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 0;
  exe[n] = '\0';
  const char* base = strrchr(exe, '/');
  return strcmp(base != NULL ? base + 1 : exe, "stapio") == 0;
}

// stapio writes to standard output unless it is given -o FILE or -S (output files). Its other
// options' values never start with '-' (-c's command is one word that names a program).
static int writes_to_standard_output(void) {
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char cmdline[16384];
  ssize_t n = read(fd, cmdline, sizeof cmdline - 1);
  close(fd);
  if (n <= 0 || n == (ssize_t)sizeof cmdline - 1) return 0;
  cmdline[n] = '\0';
  for (const char* word = cmdline; word < cmdline + n; word += strlen(word) + 1) {
    if (word[0] == '-' && (word[1] == 'o' || word[1] == 'S')) return 0;
  }
  return 1;
}

// Removes this library's own path from LD_PRELOAD, keeping anything else the user preloads.
static const char kInThisLibrary = 0;  // an address dladdr maps to this library's path

static void leave_ld_preload(void) {
  Dl_info self;
  const char* preload = getenv("LD_PRELOAD");
  if (preload == NULL || dladdr(&kInThisLibrary, &self) == 0 || self.dli_fname == NULL) return;
  size_t size = strlen(preload) + 1;
  char* kept = calloc(1, size);
  char* words = strdup(preload);
  if (kept == NULL || words == NULL) {
    free(kept);
    free(words);
    return;
  }
  size_t used = 0;
  char* rest = NULL;
  for (char* word = strtok_r(words, ": ", &rest); word != NULL;
       word = strtok_r(NULL, ": ", &rest)) {
    if (strcmp(word, self.dli_fname) == 0) continue;
    int n = snprintf(kept + used, size - used, "%s%s", used != 0 ? ":" : "", word);
    if (n < 0 || (size_t)n >= size - used) break;
    used += (size_t)n;
  }
  if (kept[0] == '\0')
    unsetenv("LD_PRELOAD");
  else
    setenv("LD_PRELOAD", kept, 1);
  free(kept);
  free(words);
}

__attribute__((constructor)) static void start(void) {
  if (!is_stapio()) return;
  leave_ld_preload();
  active = writes_to_standard_output();
}

static int is_relay_file(const char* path) {
  const char* base = strrchr(path, '/');
  base = base != NULL ? base + 1 : path;
  if (strncmp(base, "trace", 5) != 0 || base[5] == '\0') return 0;
  return strspn(base + 5, "0123456789") == strlen(base + 5);
}

static void remember(int fd, const char* path) {
  if (active && fd >= 0 && is_relay_file(path) && relay_count < kMaxRelayFiles)
    relay_fds[relay_count++] = fd;
}

int relay_file_count(void) {
  return relay_count;
}

int relay_file_descriptor(int index) {
  return relay_fds[index];
}

int relay_index(int fd) {
  for (int i = 0; i < relay_count; ++i) {
    if (relay_fds[i] == fd) return i;
  }
  return -1;
}

// Through a union, because ISO C has no cast from dlsym's object pointer to a function pointer.
any_function next(const char* name) {
  union {
    void* object;
    any_function function;
  } symbol;
  symbol.object = dlsym(RTLD_NEXT, name);
  return symbol.function;
}

static mode_t mode_argument(int flags, va_list arguments) {
  return (flags & (O_CREAT | O_TMPFILE)) != 0 ? (mode_t)va_arg(arguments, int) : 0;
}

#define WRAP_OPEN(name)                                                   \
  int name(const char* path, int flags, ...) {                            \
    static int (*real)(const char*, int, ...);                            \
    if (real == NULL) real = (int (*)(const char*, int, ...))next(#name); \
    va_list arguments;                                                    \
    va_start(arguments, flags);                                           \
    mode_t mode = mode_argument(flags, arguments);                        \
    va_end(arguments);                                                    \
    int fd = real(path, flags, mode);                                     \
    remember(fd, path);                                                   \
    return fd;                                                            \
  }

#define WRAP_OPENAT(name)                                                      \
  int name(int directory, const char* path, int flags, ...) {                  \
    static int (*real)(int, const char*, int, ...);                            \
    if (real == NULL) real = (int (*)(int, const char*, int, ...))next(#name); \
    va_list arguments;                                                         \
    va_start(arguments, flags);                                                \
    mode_t mode = mode_argument(flags, arguments);                             \
    va_end(arguments);                                                         \
    int fd = real(directory, path, flags, mode);                               \
    remember(fd, path);                                                        \
    return fd;                                                                 \
  }

WRAP_OPEN(open)
WRAP_OPEN(open64)
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)

int close(int fd) {
  static int (*real)(int);
  if (real == NULL) real = (int (*)(int))next("close");
  if (active && relay_index(fd) >= 0) finish_relay_reading();
  return real(fd);
}
