# Process lifecycle (issue 9, points 6 and 8): stop signals, leftovers of killed runs, and
# failures that must come before the compile. No root, no kernel, no guest.
# Its own binary: a stop signal, once received, stays for the life of the process.
iotap_unit_test(stop_signal_test SOURCES util/stop_signal_test.cpp LIBS iotap_util)
iotap_unit_test(file_lock_test SOURCES util/file_lock_test.cpp LIBS iotap_util)
iotap_unit_test(capture_time_limit_test SOURCES util/capture_time_limit_test.cpp LIBS iotap_util)
iotap_unit_test(leftovers_test SOURCES util/leftovers_test.cpp LIBS iotap_util)
target_compile_definitions(leftovers_test PRIVATE IOTAP_BINARY="$<TARGET_FILE:iotap>")
add_dependencies(leftovers_test iotap)

# Each of these would be found only after the compile before the fix. The script is not
# SystemTap, so a run that got as far as the compile would fail there with stap's message
# instead: the expected message proves the check comes first.
set(not_stap ${CMAKE_CURRENT_SOURCE_DIR}/data/not_systemtap.stp)
iotap_cli_test(cli_output_kernel_file 2
  "iotap: cannot write -o '/proc/version': it is a kernel interface file"
  run ${not_stap} --target vm -o /proc/version)
iotap_cli_test(cli_tmpdir_missing 2
  "iotap: TMPDIR '/nonexistent-iotap-tmp' does not exist \\(point TMPDIR at a writable directory"
  run ${not_stap} --target vm)
set_tests_properties(cli_tmpdir_missing PROPERTIES ENVIRONMENT "TMPDIR=/nonexistent-iotap-tmp")
# 108 bytes hold a unix socket's path: a TMPDIR of 110 bytes can never work.
set(long_tmpdir ${CMAKE_CURRENT_BINARY_DIR}/long-tmpdir/ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt)
file(MAKE_DIRECTORY ${long_tmpdir})
iotap_cli_test(cli_tmpdir_too_long_for_sockets 2
  "iotap: TMPDIR is too long for the guest's sockets: they would be named like '[^']*/iotap-vm\\.[0-9]+\\.XXXXXX/(ctl|out|err)' \\([0-9]+ bytes\\), and a unix socket path holds at most 107"
  run ${not_stap} --target vm)
set_tests_properties(cli_tmpdir_too_long_for_sockets PROPERTIES ENVIRONMENT "TMPDIR=${long_tmpdir}")
iotap_cli_test(cli_memory_too_small_for_initramfs 2
  "iotap: --memory 64 MiB is too small for the guest: its initramfs is about [0-9]+ MiB, and the kernel needs twice that plus [0-9]+ MiB to unpack it and run; use --memory [0-9]+ or more\n$"
  run ${not_stap} --target vm --memory 64)

# issue 27: text from the user or a file, escaped for a one-line message (util/printable.h).
iotap_unit_test(printable_test SOURCES util/printable_test.cpp LIBS iotap_util)
