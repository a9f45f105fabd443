# Unit tests for iotap iotime and top (issue 4): the labelled tables of examples/iotime.stp and
# examples/top.stp read back from recorded guest runs (tests/unit/data/iotime_*.txt, top_*.txt),
# their JSON, --interval, and SystemTap's skipped-probe count.
iotap_unit_test(iotime_top_test
  SOURCES interval/recorded.cpp interval/table_blocks_test.cpp
          interval/iotime_format_test.cpp interval/top_format_test.cpp
          session/interval_option_test.cpp interval/skipped_probes_test.cpp
  LIBS iotap_verbs)
target_compile_definitions(iotime_top_test PRIVATE
  IOTIME_TOP_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data")

# Bad --interval: one line, exit 2, before anything is compiled or booted.
iotap_cli_test(cli_iotime_interval_zero 2
  "^iotap: --interval '0': the shortest is 10ms \\(examples: 250ms, 1s, 5\\)\n$" iotime --interval 0)
iotap_cli_test(cli_iotime_interval_abc 2
  "^iotap: --interval 'abc': not a duration \\(examples: 250ms, 1s, 5\\)\n$" iotime --interval abc)
iotap_cli_test(cli_top_interval_zero 2
  "^iotap: --interval '0': the shortest is 10ms \\(examples: 250ms, 1s, 5\\)\n$" top --interval 0)
iotap_cli_test(cli_top_interval_abc 2
  "^iotap: --interval 'abc': not a duration \\(examples: 250ms, 1s, 5\\)\n$" top --interval abc)
iotap_cli_test(cli_top_interval_unit 2
  "^iotap: --interval '2m': unknown unit 'm' \\(ms or s\\) \\(examples: 250ms, 1s, 5\\)\n$" top --interval 2m)
iotap_cli_test(cli_iotime_help 0 "usage: iotap iotime.*--json: one JSON object per line.*avg_us" iotime --help)
iotap_cli_test(cli_top_help 0 "usage: iotap top.*--json: one JSON object per line.*hits_per_s" top --help)
iotap_cli_test(cli_top_stack_without_vm 2 "--stack builds md/dm devices in a guest: add --target vm" top --stack "raid0(ram*2)")
