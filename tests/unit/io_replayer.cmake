# Unit tests of workloads/io_replayer: options and plan in-process; the real binary on a file
# and a recording the test writes; its USDT notes. Test sources live next to the workload.
set(_ior_tests "${CMAKE_SOURCE_DIR}/workloads/io_replayer/tests")
iotap_unit_test(io_replayer_core_test
  SOURCES "${_ior_tests}/options_test.cpp" "${_ior_tests}/plan_test.cpp"
  LIBS io_replayer_core)

iotap_unit_test(io_replayer_cli_test
  SOURCES "${_ior_tests}/cli_test.cpp"
  LIBS iotap_recording iotap_util)
target_compile_definitions(io_replayer_cli_test PRIVATE
  "IO_REPLAYER_BIN=\"$<TARGET_FILE:io_replayer>\"")
add_dependencies(io_replayer_cli_test io_replayer)

# The USDT notes the tapset reads by position (tests/unit/usdt_notes.cmake).
iotap_usdt_note_tests(io_replayer io_replayer
  "run_start|8 8 -4 8"
  "run_end|8 8 8"
  "thread_start|-4 -4"
  "thread_end|-4 8"
  "request_start|8 -4 -4 8 8 -4"
  "request_done|8 -4 -4 8 8 -8")
