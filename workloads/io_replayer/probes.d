/*
 * USDT probes of io_replayer, provider "io_replayer". tapsets/io_replayer.stp and the launcher
 * rely on these names, argument orders and sizes; change them only together.
 *
 * run_start(char* recording, char* device, int threads, uint64_t requests)
 *   Once, in the main thread, after the recording was read and the device opened.
 * run_end(uint64_t requests, uint64_t errors, uint64_t elapsed_ns)
 *   Once, after every thread joined. errors: requests that failed or came back short.
 * thread_start(int thread_index, int tid) / thread_end(int thread_index, uint64_t requests)
 *   In each replaying thread (one per recorded thread), first and last.
 * request_start(uint64_t request_id, int thread_index, int op, uint64_t offset, uint64_t size,
 *               int direct)
 *   Just before the call. request_id: the request's place in the recording, in the order the
 *   requests started, from 1. op: 'R' (82), 'W' (87) or 'F' (70). direct: 1 with O_DIRECT.
 * request_done(uint64_t request_id, int thread_index, int op, uint64_t offset, uint64_t size,
 *              int64_t result)
 *   Just after: the call's return, or -errno.
 *
 * The same shape as block_hasher's read_start and read_done, with the op and O_DIRECT added,
 * so that the same tapsets follow a replayed request down the stack.
 */
provider io_replayer {
  probe run_start(char* recording, char* device, int threads, uint64_t requests);
  probe run_end(uint64_t requests, uint64_t errors, uint64_t elapsed_ns);
  probe thread_start(int thread_index, int tid);
  probe thread_end(int thread_index, uint64_t requests);
  probe request_start(uint64_t request_id, int thread_index, int op, uint64_t offset,
                      uint64_t size, int direct);
  probe request_done(uint64_t request_id, int thread_index, int op, uint64_t offset,
                     uint64_t size, int64_t result);
};
