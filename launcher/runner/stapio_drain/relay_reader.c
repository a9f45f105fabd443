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
// file's ring here and returns 0, as if it timed out (stapio then reads, gets 0 bytes, looks at
// its stop flag and polls again); after a small read it first pauses kGatherNanoseconds, so that
// the next read takes many messages. One thread of this library takes the messages from the
// rings in sequence order ({u32 sequence; u32 length} and the payload, as stapio's readers read
// them) and writes each round of them with writev(2) straight from the rings, in writes of whole
// messages, as large as arrive whole (whole_write_size): a byte is copied twice on its way, by
// the kernel, into the ring and out of it (it was four times with a buffer between; under
// software emulation every copy is the traced program's time, docs/performance.md). A sequence
// number not yet seen (its message not yet read on its CPU) is waited for up to
// kGapNanoseconds, as stapio waits for it, then passed over. An event reaches iotap at most
// about 50 ms later than it would have; the relay files hold 16 MiB a CPU (stap's default),
// which a pause could only fill at over 300 MB/s a CPU, and a pause follows only a small read,
// so nothing is lost to the pauses.
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
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "output_round.h"
#include "stapio_preload.h"

enum { kMaxMessage = 128 * 1024, kChunk = 256 * 1024, kRing = 4 * kChunk, kMaxFiles = 256 };
enum { kSmallRead = 16 * 1024 };
static const long kGatherNanoseconds = 50L * 1000 * 1000;
static const long long kGapNanoseconds = 1000LL * 1000 * 1000;
static const long kGapCheckNanoseconds = 100L * 1000 * 1000;

// One relay file's bytes, in a ring its reader reads into and the writer writes out of, without
// copying them in between. Positions count bytes since the start (a byte's place in the ring is
// its position modulo kRing): [start, taken) is in a round being written, [taken, end) read and
// not yet taken, and the reader reads into the rest. `lost` is set at a header that is not one
// (length 0 or over kMaxMessage): the file's place is lost, and nothing after it is used.
struct relay_file {
  int fd;
  int lost;
  int read_to_end;  // at the end of a run: a read returned nothing more
  char* ring;
  char* discard;  // what is read after `lost`, not kept; made when first needed
  uint64_t start;
  uint64_t taken;
  uint64_t end;
};

// The files, their rings and the state below are the lock's; the round is the writer's.
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more_to_take = PTHREAD_COND_INITIALIZER;  // the writer's wait
static pthread_cond_t room = PTHREAD_COND_INITIALIZER;          // a reader's wait
static struct relay_file files[kMaxFiles];
static int file_count;
static uint32_t last_sequence;  // of the last message written; 0 before the first
static long long gap_since;     // when the next message in order was first missed; 0: none
static int stopping;

static pthread_t writer;
static pthread_once_t writer_once = PTHREAD_ONCE_INIT;
static int writer_started;
static int finished;

// IOTAP_STAPIO_DRAIN_REPORT's figures.
static unsigned long relay_reads;
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

// The free bytes of `file`'s ring that follow one another from `end` on.
static size_t room_after_end(const struct relay_file* file) {
  const size_t free_bytes = kRing - (size_t)(file->end - file->start);
  const size_t to_ring_end = kRing - (size_t)(file->end % kRing);
  return free_bytes < to_ring_end ? free_bytes : to_ring_end;
}

// What one read asks for: at most kChunk bytes.
static size_t one_read(size_t room_now) {
  return room_now < (size_t)kChunk ? room_now : (size_t)kChunk;
}

// Reads up to `size` bytes of `file` into its ring, at `end` (`size` at most room_after_end);
// returns what read(2) did. The lock need not be held: the reader fills bytes no one else touches
// until `end` is moved past them (under the lock, by the caller).
static ssize_t read_into_ring(struct relay_file* file, size_t size) {
  const ssize_t got = real_read(file->fd, file->ring + file->end % kRing, size);
  __atomic_add_fetch(&relay_reads, 1, __ATOMIC_RELAXED);
  return got;
}

// Reads `file` after its place was lost: what is read is not kept.
static ssize_t read_and_discard(struct relay_file* file) {
  if (file->discard == NULL) file->discard = malloc(kChunk);
  if (file->discard == NULL) return -1;
  __atomic_add_fetch(&relay_reads, 1, __ATOMIC_RELAXED);
  return real_read(file->fd, file->discard, kChunk);
}

// How many of `size` bytes from position `at` lie before the ring's end; the rest wrap to its
// start.
static size_t before_ring_end(uint64_t at, size_t size) {
  const size_t to_end = kRing - (size_t)(at % kRing);
  return size < to_end ? size : to_end;
}

// `size` bytes of `file`'s ring from position `at` into `into`, across the ring's end.
static void copy_out(const struct relay_file* file, uint64_t at, void* into, size_t size) {
  const size_t first = before_ring_end(at, size);
  memcpy(into, file->ring + at % kRing, first);
  memcpy((char*)into + first, file->ring, size - first);
}

// Whether `file` holds a whole message not yet taken; its header ({sequence, length}) into
// `header`. Copied, not read in place: a header follows a payload of any length, so it may sit
// unaligned, or across the ring's end.
static int head(struct relay_file* file, uint32_t header[2]) {
  if (file->lost || file->end - file->taken < 8) return 0;
  copy_out(file, file->taken, header, 8);
  if (header[1] == 0 || header[1] > kMaxMessage) {
    file->lost = 1;
    pthread_cond_broadcast(&room);  // a reader waiting for room in it waits no more
    return 0;
  }
  return file->end - file->taken >= 8 + (uint64_t)header[1];
}

// Adds `size` bytes of `file`'s ring from position `at` to the round, in two pieces where they
// wrap around the ring's end.
static void add_to_round(const struct relay_file* file, uint64_t at, size_t size) {
  const size_t first = before_ring_end(at, size);
  round_add(file->ring + at % kRing, first, file->ring, size - first);
}

// The rings' room that the written round held is the readers' again. The lock is held.
static void release_round(void) {
  for (int i = 0; i < file_count; ++i) files[i].start = files[i].taken;
  pthread_cond_broadcast(&room);
}

// The relay files stapio opened, each with its ring; 0 if memory ran out. The lock is held.
static int take_files(void) {
  if (file_count > 0) return 1;
  for (int i = 0; i < relay_file_count() && i < kMaxFiles; ++i) {
    char* ring = malloc(kRing);
    if (ring == NULL) return 0;
    files[i] = (struct relay_file){.fd = relay_file_descriptor(i), .ring = ring};
    file_count = i + 1;
  }
  return file_count > 0;
}

static struct relay_file* file_of(int fd) {
  const int index = relay_index(fd);
  return index >= 0 && index < file_count ? &files[index] : NULL;
}

// Takes the messages held into the round, in sequence order, while it has room; returns how
// many. A missing sequence number is waited for up to kGapNanoseconds, unless `at_end` (nothing
// more can come then); at the end, a file not yet read to its end whose next message is not
// held stops the round: the caller reads it first (with rings refilled before each round, and
// a round of kRoundBytes, a ring cannot run dry in one: a guard, should either change). The
// lock is held.
static unsigned long take_messages(int at_end) {
  unsigned long taken = 0;
  for (;;) {
    struct relay_file* first = NULL;
    uint32_t first_header[2] = {0, 0};
    for (int i = 0; i < file_count; ++i) {
      uint32_t header[2];
      if (head(&files[i], header)) {
        if (first == NULL || header[0] < first_header[0]) {
          first = &files[i];
          first_header[0] = header[0];
          first_header[1] = header[1];
        }
      } else if (at_end && !files[i].lost && !files[i].read_to_end) {
        return taken;
      }
    }
    if (first == NULL || !round_room_for(first_header[1])) return taken;
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
    add_to_round(first, first->taken + 8, first_header[1]);
    first->taken += 8 + (uint64_t)first_header[1];
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
      // Written without the lock: the round's bytes lie between their files' `start` and
      // `taken`, which only this thread moves (release_round).
      pthread_mutex_unlock(&lock);
      round_write();
      pthread_mutex_lock(&lock);
      release_round();
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
  // Not cancelled holding the lock (stapio cancels its readers when Ctrl-C is pressed three
  // times): at the next poll instead.
  int cancel_state = 0;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
  pthread_mutex_lock(&lock);
  size_t room_now = 0;
  while (!file->lost && (room_now = room_after_end(file)) == 0) pthread_cond_wait(&room, &lock);
  const int lost = file->lost;
  pthread_mutex_unlock(&lock);
  const size_t asked = lost ? (size_t)kChunk : one_read(room_now);
  const ssize_t got = lost ? read_and_discard(file) : read_into_ring(file, asked);
  if (got > 0 && !lost) {
    pthread_mutex_lock(&lock);
    file->end += (uint64_t)got;
    pthread_cond_signal(&more_to_take);
    pthread_mutex_unlock(&lock);
  }
  pthread_setcancelstate(cancel_state, NULL);
  // A read that took all there was, and little: wait for more to gather.
  if (got < 0 || (got < kSmallRead && (size_t)got < asked)) pause_to_gather();
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
  // The readers are joined and the probes have stopped: every file is read to its end, a ring
  // at a time, and its messages written in sequence order.
  while (take_files()) {
    for (int i = 0; i < file_count; ++i) {
      struct relay_file* file = &files[i];
      size_t room_now = 0;
      while (!file->lost && !file->read_to_end && (room_now = room_after_end(file)) > 0) {
        const ssize_t got = read_into_ring(file, one_read(room_now));
        if (got <= 0) file->read_to_end = 1;
        if (got > 0) file->end += (uint64_t)got;
      }
    }
    if (take_messages(1) == 0) break;
    round_write();
    release_round();
  }
  pthread_mutex_unlock(&lock);
  if (getenv("IOTAP_STAPIO_DRAIN_REPORT") == NULL) return;
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  fprintf(stderr,
          "iotap stapio_drain: %lu messages (%lu after the readers stopped), %lu passed over a "
          "missing one; %lu relay reads, %lu writes; stapio's cpu time: user %ld.%03ld s, "
          "system %ld.%03ld s; when its readers started: user %ld.%03ld s, system %ld.%03ld s\n",
          messages, messages_at_end, passed_over, relay_reads, round_writes(),
          (long)usage.ru_utime.tv_sec, (long)usage.ru_utime.tv_usec / 1000,
          (long)usage.ru_stime.tv_sec, (long)usage.ru_stime.tv_usec / 1000,
          (long)usage_at_start.ru_utime.tv_sec, (long)usage_at_start.ru_utime.tv_usec / 1000,
          (long)usage_at_start.ru_stime.tv_sec, (long)usage_at_start.ru_stime.tv_usec / 1000);
}
