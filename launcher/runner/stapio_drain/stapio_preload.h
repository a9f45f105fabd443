// What the two halves of stapio_drain.so share: whether this process is stapio writing its stream
// to standard output, which of its files are relay files, and libc's own functions.
#ifndef IOTAP_STAPIO_PRELOAD_H
#define IOTAP_STAPIO_PRELOAD_H

#define IOTAP_HIDDEN __attribute__((visibility("hidden")))

typedef void (*any_function)(void);  // GCC lets this type be cast to any other function type

// The next definition of `name` (libc's), as a function pointer.
IOTAP_HIDDEN any_function next(const char* name);

// Set once at load: this process is stapio, writing the module's output to standard output.
IOTAP_HIDDEN extern int active;

// The relay files stapio opened, in the order it opened them.
IOTAP_HIDDEN int relay_file_count(void);
IOTAP_HIDDEN int relay_file_descriptor(int index);
// The relay file's place among those stapio opened (0, 1, ...), or -1 for any other fd.
IOTAP_HIDDEN int relay_index(int fd);

// relay_reader.c: the end of a run (stapio has joined its readers): stops the library's reader
// and writes everything left in the relay files, in sequence order. Once; later calls do nothing.
IOTAP_HIDDEN void finish_relay_reading(void);

#endif
