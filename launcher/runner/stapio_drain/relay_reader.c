// relay_reader.c: stapio's relay files read many messages at a time, and written to standard
// output in sequence order by one thread, many messages to a write.
//
// Why: stapio 4.8 takes the module's output a message at a time (a message is what one probe
// printed). A reader thread per CPU polls its relay file, reads an 8-byte header and the payload,
// waits on a condition variable until the messages before it (by sequence number, read by the
// other CPUs' readers) are written, and writes it with one write(2). Messages alternate between
// CPUs at nearly every event of an I/O (queued on one, completed on another), so nearly every
// message hands the turn from one reader thread to the other: a futex wake, a context switch and
// three system calls per message, on the CPUs the traced program runs on. That was most of what
// a probe hit cost it (bench/overhead, docs/performance.md).
//
// How: stapio's reader threads still read their relay files, each on its own CPU (stapio pins
// them there: a relay file may only be read up to where the kernel writes on that file's own CPU,
// or a message reserved and not yet copied in is read half written), but through this library:
// their ppoll on a relay file, once the file is readable, reads up to kChunk bytes into the
// file's buffer here and returns 0, as if it timed out (stapio then reads, gets 0 bytes, looks at
// its stop flag and polls again); after a small read it first pauses kGatherNanoseconds, so that
// the next read takes many messages. One thread of this library takes the messages from the
// buffers in sequence order ({u32 sequence; u32 length} and the payload, as stapio's readers read
// them) and writes each round of them in writes of whole messages, as large as arrive whole
// (whole_write_size). A sequence number not yet seen (its message not yet read on its CPU) is
// waited for up to kGapNanoseconds, as stapio waits for it, then passed over. An event reaches
// iotap at most about 50 ms later than it would have; the relay files hold 16 MiB a CPU (stap's
// default), which a pause could only fill at over 300 MB/s a CPU, and a pause follows only a
// small read, so nothing is lost to the pauses.
//
// Why 50 ms: every wakeup of a reader costs the CPUs the program runs on (a poll's return, a
// read, the writer's wakeup and its write), whatever it carries. Under bench/overhead's 4 KiB
// reads a hit cost iotap 11.9 us with 2 ms pauses, 8.8 with 20 and 6.7 with 50; at 64 KiB reads,
// whose events come slower, 47.8, 18.5 and 18.1 (docs/performance.md).
//
// At the end of a run (stapio's first close of a relay file, after it has joined its readers)
// the thread is stopped, and what is still in the files is read and written in sequence order
// (stapio 4.8 itself would leave it unread: stapio_drain.c).
#define _GNU_SOURCE  // NOLINT(bugprone-reserved-identifier): glibc asks for it by this name
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stapio_preload.h"

enum { kMaxMessage = 128 * 1024, kChunk = 256 * 1024, kBuffer = 4 * kChunk, kMaxFiles = 256 };
enum { kOutput = 2 * kMaxMessage, kSmallRead = 16 * 1024 };
static const long kGatherNanoseconds = 50L * 1000 * 1000;
static const long long kGapNanoseconds = 1000LL * 1000 * 1000;
static const long kGapCheckNanoseconds = 100L * 1000 * 1000;

// One relay file's bytes read and not yet taken. `lost` is set at a header that is not one
// (length 0 or over kMaxMessage): the file's place is lost, and nothing after it is used.
struct relay_file {
  int fd;
  int lost;
  char* data;
  size_t capacity;
  size_t start;
  size_t end;
  char* chunk;  // kChunk bytes: what its reader thread reads, before it takes the lock
};

// The files, their buffers and the state below are the lock's; `output` is the writer's.
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more_to_take = PTHREAD_COND_INITIALIZER;  // the writer's wait
static pthread_cond_t room = PTHREAD_COND_INITIALIZER;          // a reader's wait
static struct relay_file files[kMaxFiles];
static int file_count;
static uint32_t last_sequence;  // of the last message written; 0 before the first
static long long gap_since;     // when the next message in order was first missed; 0: none
static int stopping;

static char output[kOutput];
static size_t output_used;

static pthread_t writer;
static pthread_once_t writer_once = PTHREAD_ONCE_INIT;
static int writer_started;
static int finished;

// IOTAP_STAPIO_DRAIN_REPORT's figures.
static unsigned long relay_reads;
static unsigned long writes;
static unsigned long messages;
static unsigned long messages_at_end;
static unsigned long passed_over;

static ssize_t (*real_read)(int, void*, size_t);
static int (*real_ppoll)(struct pollfd*, nfds_t, const struct timespec*, const sigset_t*);

// Before stapio_drain.c's constructor, which reads /proc (priority 101 is the first one not
// reserved); and again on demand, should another library's constructor read first.
__attribute__((constructor(101))) static void find_real_functions(void) {
  real_read = (ssize_t(*)(int, void*, size_t))next("read");
  real_ppoll =
      (int (*)(struct pollfd*, nfds_t, const struct timespec*, const sigset_t*))next("ppoll");
}

static long long now_nanoseconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static void pause_to_gather(void) {
  const struct timespec pause = {.tv_sec = 0, .tv_nsec = kGatherNanoseconds};
  nanosleep(&pause, NULL);
}

// The most one write(2) may carry and still arrive whole when another process writes to the
// same output: stapio's standard output is also the traced program's (stapio -c), and a write
// the kernel splits lets the program's lines in between the pieces, in the middle of one of the
// script's lines (a CI run read "RD thread 0: 8 ...", block_hasher's report inside an event).
// A pipe or a socket keeps a write whole up to PIPE_BUF; a virtio-serial port (the guest's
// output) up to the 32 KiB it sends as one buffer; a terminal or a file keeps any write whole.
static size_t whole_write_size(void) {
  struct stat output_stat;
  if (fstat(STDOUT_FILENO, &output_stat) != 0) return PIPE_BUF;
  if (S_ISFIFO(output_stat.st_mode) || S_ISSOCK(output_stat.st_mode)) return PIPE_BUF;
  return (size_t)32 * 1024;
}

// Where the writes of what is held end: each write is whole messages up to whole_write_size()
// bytes, or one message longer than that (which no write keeps whole, nor did stapio's). At
// messages, not newlines: a message is what one probe printed (a whole line of a text script) or
// a batch of whole binary records of iotap's event stream (docs/event-format.md), which holds no
// newline to cut at and must not be cut. A full list ends the round early; the writer takes the
// rest next.
enum { kMaxPieces = 2 * kOutput / PIPE_BUF + 2 };
static size_t piece_ends[kMaxPieces];
static size_t piece_count;
static size_t piece_limit;

// Room for a message of `size` bytes at the end of output, in the current piece or a new one.
static int room_for_message(size_t size) {
  if (piece_limit == 0) piece_limit = whole_write_size();
  if (output_used + size > sizeof output) return 0;
  const size_t piece_start = piece_count > 0 ? piece_ends[piece_count - 1] : 0;
  if (output_used > piece_start && output_used - piece_start + size > piece_limit) {
    if (piece_count == kMaxPieces - 1) return 0;  // the last entry closes the round's last piece
    piece_ends[piece_count++] = output_used;
  }
  return 1;
}

// Writes what is held, in pieces that each arrive whole. A failed write loses what is left of
// it, as stapio's own would have.
static void write_output(void) {
  if (output_used > 0 && (piece_count == 0 || piece_ends[piece_count - 1] < output_used))
    piece_ends[piece_count++] = output_used;
  size_t written = 0;
  int failed = 0;
  for (size_t piece = 0; piece < piece_count && !failed; ++piece) {
    while (written < piece_ends[piece]) {
      const ssize_t n = write(STDOUT_FILENO, output + written, piece_ends[piece] - written);
      ++writes;
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed = 1;
        break;
      }
      written += (size_t)n;
    }
  }
  output_used = 0;
  piece_count = 0;
}

// The relay files stapio opened, each with its buffer; 0 if memory ran out. The lock is held.
static int take_files(void) {
  if (file_count > 0) return 1;
  for (int i = 0; i < relay_file_count() && i < kMaxFiles; ++i) {
    char* data = malloc(kBuffer);
    char* chunk = malloc(kChunk);
    if (data == NULL || chunk == NULL) {
      free(data);
      free(chunk);
      return 0;
    }
    files[i] = (struct relay_file){relay_file_descriptor(i), 0, data, kBuffer, 0, 0, chunk};
    file_count = i + 1;
  }
  return file_count > 0;
}

static struct relay_file* file_of(int fd) {
  const int index = relay_index(fd);
  return index >= 0 && index < file_count ? &files[index] : NULL;
}

// Appends `size` read bytes to `file`, waiting for room while the writer takes what it holds
// (or, with `grow`, at the end of a run, making room). The lock is held.
static void append(struct relay_file* file, const char* bytes, size_t size, int grow) {
  for (;;) {
    // A file whose place is lost is not read any further: its bytes would wait for room
    // forever, and its reader with them, past stapio's stop.
    if (file->lost) return;
    if (file->start > 0) {
      memmove(file->data, file->data + file->start, file->end - file->start);
      file->end -= file->start;
      file->start = 0;
    }
    if (file->end + size <= file->capacity) break;
    if (grow) {
      char* bigger = realloc(file->data, file->end + size);
      if (bigger == NULL) return;  // out of memory at the end: the rest of this file is lost
      file->data = bigger;
      file->capacity = file->end + size;
      break;
    }
    pthread_cond_wait(&room, &lock);
  }
  memcpy(file->data + file->end, bytes, size);
  file->end += size;
}

// Whether `file` holds a whole message; its header ({sequence, length}) into `header`. Copied,
// not read in place: a header follows a payload of any length, so it may sit unaligned.
static int head(struct relay_file* file, uint32_t header[2]) {
  if (file->lost || file->end - file->start < 8) return 0;
  memcpy(header, file->data + file->start, 8);
  if (header[1] == 0 || header[1] > kMaxMessage) {
    file->lost = 1;
    pthread_cond_broadcast(&room);  // a reader waiting for room in it waits no more
    return 0;
  }
  return file->end - file->start >= 8 + (size_t)header[1];
}

// Moves the messages held into `output`, in sequence order, while it has room; returns how many.
// A missing sequence number is waited for up to kGapNanoseconds, unless `at_end` (nothing more
// can come then). The lock is held.
static unsigned long take_messages(int at_end) {
  unsigned long taken = 0;
  for (;;) {
    struct relay_file* first = NULL;
    uint32_t first_header[2] = {0, 0};
    for (int i = 0; i < file_count; ++i) {
      uint32_t header[2];
      if (head(&files[i], header) && (first == NULL || header[0] < first_header[0])) {
        first = &files[i];
        first_header[0] = header[0];
        first_header[1] = header[1];
      }
    }
    if (first == NULL || !room_for_message(first_header[1])) return taken;
    const uint32_t sequence = first_header[0];
    // The next in order may still be on its way into its file; a message older than the last
    // written (passed over before) goes out at once.
    if (sequence > last_sequence + 1 && !at_end) {
      const long long now = now_nanoseconds();
      if (gap_since == 0) gap_since = now;
      if (now - gap_since < kGapNanoseconds) return taken;
      ++passed_over;
    }
    gap_since = 0;
    memcpy(output + output_used, first->data + first->start + 8, first_header[1]);
    output_used += first_header[1];
    first->start += 8 + first_header[1];
    last_sequence = sequence;
    ++taken;
    ++messages;
    if (at_end) ++messages_at_end;
  }
}

static void* write_messages(void* unused) {
  (void)unused;
  pthread_mutex_lock(&lock);
  for (;;) {
    if (take_messages(0) > 0) {
      pthread_cond_broadcast(&room);
      pthread_mutex_unlock(&lock);
      write_output();
      pthread_mutex_lock(&lock);
      continue;
    }
    if (stopping) break;
    // Woken by a reader's bytes; in time, too, to pass over a missing message.
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += kGapCheckNanoseconds;
    if (deadline.tv_nsec >= 1000000000L) {
      deadline.tv_sec += 1;
      deadline.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&more_to_take, &lock, &deadline);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

// stapio's CPU time when its first reader first polled a relay file: what it spent before (its
// start, the module's loading) is no cost of the events (IOTAP_STAPIO_DRAIN_REPORT).
static struct rusage usage_at_start;

static void start_writer(void) {
  getrusage(RUSAGE_SELF, &usage_at_start);
  pthread_mutex_lock(&lock);
  const int ready = take_files();
  pthread_mutex_unlock(&lock);
  if (!ready) return;
  // Signals are for stapio's own threads: its readers wait for SIGUSR2, its main thread for
  // SIGINT and SIGTERM.
  sigset_t all;
  sigset_t before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  writer_started = pthread_create(&writer, NULL, write_messages, NULL) == 0;
  pthread_sigmask(SIG_SETMASK, &before, NULL);
}

static int in_library_hands(int fd) {
  return active && writer_started && !finished && relay_index(fd) >= 0;
}

ssize_t read(int fd, void* destination, size_t size) {
  if (real_read == NULL) find_real_functions();
  if (in_library_hands(fd)) return 0;  // stapio's reader: "seen during normal shutdown"
  return real_read(fd, destination, size);
}

// A stapio reader thread's poll of its relay file: once the file has something, it is read here,
// on the thread's own CPU, and the poll returns 0.
int ppoll(struct pollfd* fds, nfds_t count, const struct timespec* timeout, const sigset_t* mask) {
  if (real_ppoll == NULL) find_real_functions();
  if (count != 1 || !active || finished || relay_index(fds->fd) < 0)
    return real_ppoll(fds, count, timeout, mask);
  pthread_once(&writer_once, start_writer);
  struct relay_file* file = writer_started ? file_of(fds->fd) : NULL;
  if (file == NULL) return real_ppoll(fds, count, timeout, mask);  // stapio reads, as before
  const int ready = real_ppoll(fds, count, timeout, mask);
  if (ready <= 0) return ready;  // a signal, or stapio's timeout
  const ssize_t got = real_read(fds->fd, file->chunk, kChunk);
  __atomic_add_fetch(&relay_reads, 1, __ATOMIC_RELAXED);
  if (got > 0) {
    // Not cancelled holding the lock (stapio cancels its readers when Ctrl-C is pressed three
    // times): at the next poll instead.
    int cancel_state = 0;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    pthread_mutex_lock(&lock);
    append(file, file->chunk, (size_t)got, 0);
    pthread_cond_signal(&more_to_take);
    pthread_mutex_unlock(&lock);
    pthread_setcancelstate(cancel_state, NULL);
  }
  if (got < kSmallRead) pause_to_gather();
  // As if the poll timed out: stapio's read then gets 0, it looks at its stop flag, and polls
  // again.
  return 0;
}

void finish_relay_reading(void) {
  if (finished) return;
  if (writer_started) {
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_signal(&more_to_take);
    pthread_mutex_unlock(&lock);
    pthread_join(writer, NULL);
  }
  finished = 1;
  pthread_mutex_lock(&lock);
  if (take_files()) {
    // The readers are joined and the probes have stopped: read every file to its end.
    char* chunk = malloc(kChunk);
    for (int i = 0; chunk != NULL && i < file_count; ++i) {
      ssize_t got = 0;
      while ((got = real_read(files[i].fd, chunk, kChunk)) > 0) {
        ++relay_reads;
        append(&files[i], chunk, (size_t)got, 1);
      }
    }
    free(chunk);
    while (take_messages(1) > 0) write_output();
  }
  pthread_mutex_unlock(&lock);
  if (getenv("IOTAP_STAPIO_DRAIN_REPORT") == NULL) return;
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  fprintf(stderr,
          "iotap stapio_drain: %lu messages (%lu after the readers stopped), %lu passed over a "
          "missing one; %lu relay reads, %lu writes; stapio's cpu time: user %ld.%03ld s, "
          "system %ld.%03ld s; when its readers started: user %ld.%03ld s, system %ld.%03ld s\n",
          messages, messages_at_end, passed_over, relay_reads, writes, (long)usage.ru_utime.tv_sec,
          (long)usage.ru_utime.tv_usec / 1000, (long)usage.ru_stime.tv_sec,
          (long)usage.ru_stime.tv_usec / 1000, (long)usage_at_start.ru_utime.tv_sec,
          (long)usage_at_start.ru_utime.tv_usec / 1000, (long)usage_at_start.ru_stime.tv_sec,
          (long)usage_at_start.ru_stime.tv_usec / 1000);
}
