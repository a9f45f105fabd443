# latencytap's analysis (launcher/latency/): sleeps paired with wakeups, named by reason, on a
# real guest recording; and the verb's command line.
iotap_unit_test(latency_test SOURCES latency/latency_test.cpp LIBS iotap_latency iotap_util)
target_compile_definitions(latency_test PRIVATE
  LATENCY_RECORDING="${CMAKE_CURRENT_SOURCE_DIR}/data/latency_raid0_delay20.txt")
iotap_cli_test(cli_latency_help 0 "usage: iotap latency.*Userspace lock contention.*--stacks"
  latency --help)
iotap_cli_test(cli_latency_needs_a_program 2 "^iotap: give the program to watch: -c" latency)
iotap_cli_test(cli_latency_bad_stack 2 "iotap: --stack: unknown device 'rom'"
  latency --target vm --stack "raid0(rom*2)" -c "block_hasher -d __DEV__ -b 65536")
# A mistyped -o fails at once, not after the run.
iotap_cli_test(cli_latency_bad_output 2 "^iotap: cannot write -o '/nonexistent/latency.txt': no directory '/nonexistent'"
  latency --target vm --stack "raid0(ram*2)" -c "block_hasher -d __DEV__ -b 65536" -o /nonexistent/latency.txt)
