// A program of a user's own with its own USDT probes, traced through a provider file of its own
// (usdt_requests.provider beside it; docs/providers.md): a batch of reads, and each read in it.
//
//   usdt_requests FILE COUNT SIZE
//
// reads COUNT blocks of SIZE bytes from the start of FILE with pread and O_DIRECT (so that each
// read reaches the device: bios under each request), one after the other, on one thread.
// Probes (provider usdt_requests):
//   batch_start(label, count) .. batch_done(label, reads_ok)   the whole batch; label: a C string
//   request_start(id, offset, size) .. request_done(id, result)  one pread; id from 1
// Exit status 0 when every read returned SIZE bytes, 1 otherwise.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: usdt_requests FILE COUNT SIZE\n");
    return 2;
  }
  const long count = strtol(argv[2], NULL, 10);
  const long size = strtol(argv[3], NULL, 10);
  const int fd = open(argv[1], O_RDONLY | O_DIRECT);
  void* buffer = NULL;
  if (fd < 0 || count <= 0 || size <= 0 || posix_memalign(&buffer, 4096, (size_t)size) != 0) {
    perror(argv[1]);
    return 2;
  }
  // The label is written here, as a program's text usually is: a string literal in a page of
  // .rodata not touched yet would fault, and a probe handler cannot take a page fault.
  char label[64];
  snprintf(label, sizeof label, "a batch of %ld reads\twith a tab", count);
  long reads_ok = 0;
  STAP_PROBE2(usdt_requests, batch_start, label, count);
  for (long i = 0; i < count; ++i) {
    const uint64_t id = (uint64_t)i + 1;
    const int64_t offset = (int64_t)i * size;
    STAP_PROBE3(usdt_requests, request_start, id, offset, size);
    const ssize_t result = pread(fd, buffer, (size_t)size, offset);
    STAP_PROBE2(usdt_requests, request_done, id, (int64_t)result);
    if (result == size) ++reads_ok;
  }
  STAP_PROBE2(usdt_requests, batch_done, label, reads_ok);
  free(buffer);
  close(fd);
  printf("%ld of %ld reads of %ld bytes\n", reads_ok, count, size);
  return reads_ok == count ? 0 : 1;
}
