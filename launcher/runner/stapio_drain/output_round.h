#ifndef IOTAP_OUTPUT_ROUND_H
#define IOTAP_OUTPUT_ROUND_H
// output_round.c: the messages relay_reader.c takes, in sequence order, gathered as iovecs into
// the bytes where they lie (its rings) and written to standard output with writev(2), in pieces
// that each arrive whole.
#include <stddef.h>

#include "stapio_preload.h"

// A round holds at most this many bytes (whatever a message's size, one message fits).
enum { kRoundBytes = 256 * 1024 };

// Whether the round has room for a message of `size` bytes (two iovecs at most); when it has, the
// message goes into the piece being filled or, past what one write keeps whole, a new one.
IOTAP_HIDDEN int round_room_for(size_t size);

// Adds a message to the round: its `first_size` bytes at `first` and, where it wraps around a
// ring's end, `second_size` more at `second` (0: none). The bytes must stay where they are until
// round_write returns.
IOTAP_HIDDEN void round_add(const char* first, size_t first_size, const char* second,
                            size_t second_size);

// Writes the round, a writev a piece, and empties it. A failed write loses what is left of the
// round, as stapio's own would have.
IOTAP_HIDDEN void round_write(void);

// writev(2) calls made (IOTAP_STAPIO_DRAIN_REPORT).
IOTAP_HIDDEN unsigned long round_writes(void);

#endif
