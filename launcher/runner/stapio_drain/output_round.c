// output_round.c: see output_round.h.
#define _GNU_SOURCE  // NOLINT(bugprone-reserved-identifier): glibc asks for it by this name
#include "output_round.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

// A round's iovecs: a message is one, or two where it wraps around its ring's end. One writev
// takes at most IOV_MAX (1024 on Linux) of them.
enum { kRoundIovecs = 4096, kPieceIovecs = IOV_MAX, kMaxPieces = kRoundIovecs + 1 };

// The round: the messages taken, in order, as iovecs into the rings, cut into pieces that each
// go out in one writev (piece_ends: where each ends, in iovecs).
static struct iovec round_iovecs[kRoundIovecs];
static size_t round_iovec_count;
static size_t round_bytes;
static size_t piece_ends[kMaxPieces];
static size_t piece_count;
static size_t piece_bytes;  // of the piece being filled
static size_t piece_limit;
static unsigned long writev_calls;

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

static void close_piece(void) {
  piece_ends[piece_count++] = round_iovec_count;
  piece_bytes = 0;
}

int round_room_for(size_t size) {
  if (piece_limit == 0) piece_limit = whole_write_size();
  if (round_bytes > 0 && round_bytes + size > kRoundBytes) return 0;
  if (round_iovec_count + 2 > kRoundIovecs) return 0;
  const size_t piece_start = piece_count > 0 ? piece_ends[piece_count - 1] : 0;
  const size_t piece_iovecs = round_iovec_count - piece_start;
  if (piece_iovecs > 0 && (piece_bytes + size > piece_limit || piece_iovecs + 2 > kPieceIovecs))
    close_piece();
  return 1;
}

void round_add(const char* first, size_t first_size, const char* second, size_t second_size) {
  round_iovecs[round_iovec_count++] = (struct iovec){(void*)first, first_size};
  if (second_size > 0)
    round_iovecs[round_iovec_count++] = (struct iovec){(void*)second, second_size};
  round_bytes += first_size + second_size;
  piece_bytes += first_size + second_size;
}

// Writes one piece's iovecs, through short writes. Returns 0 if a write failed.
static int write_piece(struct iovec* iovecs, size_t count) {
  while (count > 0) {
    const ssize_t n = writev(STDOUT_FILENO, iovecs, (int)count);
    ++writev_calls;
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    size_t left = (size_t)n;
    while (count > 0 && left >= iovecs->iov_len) {
      left -= iovecs->iov_len;
      ++iovecs;
      --count;
    }
    if (count > 0) {
      iovecs->iov_base = (char*)iovecs->iov_base + left;
      iovecs->iov_len -= left;
    }
  }
  return 1;
}

void round_write(void) {
  const size_t piece_start = piece_count > 0 ? piece_ends[piece_count - 1] : 0;
  if (round_iovec_count > piece_start) close_piece();
  size_t from = 0;
  for (size_t piece = 0; piece < piece_count; ++piece) {
    if (!write_piece(round_iovecs + from, piece_ends[piece] - from)) break;
    from = piece_ends[piece];
  }
  round_iovec_count = 0;
  round_bytes = 0;
  piece_count = 0;
  piece_bytes = 0;
}

unsigned long round_writes(void) {
  return writev_calls;
}
