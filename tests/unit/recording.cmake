# Unit tests for recordings (issue 12): the format's writer and reader round trip, every kind of
# damage a reader must name with its byte offset, and the fio iolog conversion.
iotap_unit_test(recording_test
  SOURCES recording/format_test.cpp recording/fio_iolog_test.cpp recording/fidelity_test.cpp
          recording/compare_test.cpp recording/file_layout_test.cpp
  LIBS iotap_recording iotap_compare)

# iotap record's bad input: one line, exit 2, before anything is compiled or booted.
iotap_cli_test(cli_record_help 0 "usage: iotap record -c CMD.*--format fio.*--replay_redirect" record --help)
iotap_cli_test(cli_record_bad_format 2
  "^iotap: --format must be 'iotap' \\(iotap's own recording\\) or 'fio' \\(fio's iolog v3\\), not 'csv'\n$"
  record --format csv -c block_hasher)
iotap_cli_test(cli_record_needs_a_program 2 "give the program whose requests to follow: -c"
  record --target vm --stack "raid0(ram*2)")
iotap_cli_test(cli_record_postgres_system_calls 2
  "^iotap: iotap record --postgres records the server's smgr reads and writes, with their files and offsets; its system calls name offsets in files a replay cannot place: leave out --requests syscall\n$"
  record --requests syscall --target vm --stack "raid0(ram*2)" --postgres --sql "SELECT 1")
iotap_cli_test(cli_record_output_is_a_directory 2
  "^iotap: cannot write -o '/tmp': it is a directory \\(name a file in a directory you can write to\\)\n$"
  record -o /tmp --target vm --stack "raid0(ram*2)" -c block_hasher)

# iotap replay's bad input: the recording is read on the host first, so a damaged one is named
# with its byte before anything is compiled or booted.
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/cut.rec" "iotap-recording 1\nheader {}\n0 0 R 0 4096 4096 9 9:0 1 read\n")
iotap_cli_test(cli_replay_help 0 "usage: iotap replay FILE --target vm --stack SPEC.*--pace xN" replay --help)
iotap_cli_test(cli_replay_needs_a_recording 2
  "^iotap: iotap replay needs a recording: iotap replay FILE --target vm --stack SPEC \\(iotap record makes one\\)\n$"
  replay --target vm --stack "raid0(ram*2)")
iotap_cli_test(cli_replay_cut_recording 2
  "^iotap: [^\n]*/cut.rec: byte 59: the recording ends without its end line, after 1 requests: it was cut short \\(iotap record killed, or a full disk\\) \\(iotap replay takes what iotap record wrote\\)\n$"
  replay "${CMAKE_CURRENT_BINARY_DIR}/cut.rec" --target vm --stack "raid0(ram*2)")
iotap_cli_test(cli_replay_missing_recording 2
  "^iotap: cannot read the recording /no/such.rec: No such file or directory\n$"
  replay /no/such.rec --target vm --stack "raid0(ram*2)")
iotap_cli_test(cli_replay_bad_pace 2
  "^iotap: --pace must be recorded, fast or xN \\(N from 0.001 to 1000: x2 twice as fast, x0.5 half as fast\\), not 'x0'\n$"
  replay /no/such.rec --pace x0 --target vm --stack "raid0(ram*2)")
iotap_cli_test(cli_replay_local_needs_a_device 2
  "^iotap: iotap replay --target local needs --device DEV: the device \\(or file\\) to replay on\n$"
  replay /no/such.rec)

# iotap compare's bad input.
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/not_json.txt" "hello\n")
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/run.json" "{\"schema\": \"iotap.run/1\"}\n")
iotap_cli_test(cli_compare_help 0 "usage: iotap compare A B.*differs from A by more than 20%" compare --help)
iotap_cli_test(cli_compare_needs_two 2
  "^iotap: iotap compare needs two files: iotap compare A.json B.json \\(see 'iotap compare --help'\\)\n$"
  compare only.json)
iotap_cli_test(cli_compare_missing_file 2 "^iotap: cannot read '/no/such.json': No such file or directory\n$"
  compare /no/such.json /no/such.json)
iotap_cli_test(cli_compare_not_json 2
  "^iotap: [^\n]*/not_json.txt is neither JSON nor a recording \\(give the --json of iotap attribute, diagnose or replay, or what iotap record wrote\\)\n$"
  compare "${CMAKE_CURRENT_BINARY_DIR}/not_json.txt" "${CMAKE_CURRENT_BINARY_DIR}/not_json.txt")
iotap_cli_test(cli_compare_not_an_attribution 2
  "^iotap: [^\n]*/run.json is not an iotap attribution \\(the --json of iotap attribute, diagnose or replay, schema iotap.attribution/3 or iotap.attribution/2\\) nor a recording\n$"
  compare "${CMAKE_CURRENT_BINARY_DIR}/run.json" "${CMAKE_CURRENT_BINARY_DIR}/run.json")

# issue 27: numbers that parse but cannot be right are refused before anything is compiled or
# booted, not carried into the replay (a pacing error of 3.4e30 us, a p99 of 2^64 ns, offsets
# scaled by 0.0000).
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/wraps.rec"
  "iotap-recording 1\nheader {}\n18446744073709551615 0 R 0 4096 4096 9 9:0 1 read\nend {\"requests\":1}\n")
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/past_offsets.rec"
  "iotap-recording 1\nheader {}\n0 0 R 9223372036854775807 1048576 1048576 9 9:0 1 read\nend {\"requests\":1}\n")
iotap_cli_test(cli_replay_pace_out_of_range 2
  "^iotap: --pace must be recorded, fast or xN \\(N from 0.001 to 1000: x2 twice as fast, x0.5 half as fast\\), not 'x1e-300'\n$"
  replay /no/such.rec --pace x1e-300 --target vm --stack "raid0(ram*2)")
iotap_cli_test(cli_replay_recording_time_wraps 2
  "^iotap: [^\n]*/wraps.rec: byte 28 \\(line 3\\): START \\+ LATENCY \\(18446744073709551615 \\+ 9 ns\\) is past the last time a recording can hold \\(2\\^64 ns\\) \\(iotap replay takes what iotap record wrote\\)\n$"
  replay "${CMAKE_CURRENT_BINARY_DIR}/wraps.rec" --target vm --stack "raid0(ram*2)")
iotap_cli_test(cli_replay_recording_offset_past_files 2
  "^iotap: [^\n]*/past_offsets.rec: byte 28 \\(line 3\\): OFFSET \\+ SIZE \\(9223372036854775807 \\+ 1048576 bytes\\) is past the last byte a file can have \\(2\\^63 - 1\\) \\(iotap replay takes what iotap record wrote\\)\n$"
  replay "${CMAKE_CURRENT_BINARY_DIR}/past_offsets.rec" --target vm --stack "raid0(ram*2)")

# issue 27: an attribution read back (report, compare) is checked against its schema first
# (report/attribution_check.h): the files that crashed them or made them exit 70 are kept in
# data/attribution/, each refused naming the file and the field.
set(attribution_data ${CMAKE_CURRENT_SOURCE_DIR}/data/attribution)
iotap_unit_test(attribution_check_test SOURCES report/attribution_check_test.cpp
  LIBS iotap_report iotap_compare)
target_compile_definitions(attribution_check_test PRIVATE ATTRIBUTION_DATA_DIR="${attribution_data}")
iotap_cli_test(cli_report_device_empty 2
  "^iotap: [^\n]*/device_empty.json: devices\\[0\\].name: missing \\(expected a string\\)\n$"
  report ${attribution_data}/device_empty.json -o ${CMAKE_CURRENT_BINARY_DIR}/device_empty.html)
iotap_cli_test(cli_report_layer_empty 2
  "^iotap: [^\n]*/layer_empty.json: layers\\[0\\].name: missing \\(expected a string\\)\n$"
  report ${attribution_data}/layer_empty.json -o ${CMAKE_CURRENT_BINARY_DIR}/layer_empty.html)
iotap_cli_test(cli_report_slowest_empty 2
  "^iotap: [^\n]*/slowest_empty.json: slowest\\[0\\].request: missing \\(expected a whole number, 0 or more\\)\n$"
  report ${attribution_data}/slowest_empty.json -o ${CMAKE_CURRENT_BINARY_DIR}/slowest_empty.html)
iotap_cli_test(cli_report_histogram_negative_bound 2
  "^iotap: [^\n]*/histogram_to_us_negative.json: requests.latency_us.histogram\\[0\\].to_us: expected a whole number, 0 or more, found -1\n$"
  report ${attribution_data}/histogram_to_us_negative.json -o ${CMAKE_CURRENT_BINARY_DIR}/histogram.html)
iotap_cli_test(cli_report_requests_null 2
  "^iotap: [^\n]*/requests_null.json: requests: expected an object, found null\n$"
  report ${attribution_data}/requests_null.json -o ${CMAKE_CURRENT_BINARY_DIR}/requests_null.html)
iotap_cli_test(cli_compare_layer_empty 2
  "^iotap: [^\n]*/layer_empty.json: layers\\[0\\].name: missing \\(expected a string\\)\n$"
  compare ${attribution_data}/valid.json ${attribution_data}/layer_empty.json)
iotap_cli_test(cli_compare_slow_member_empty 2
  "^iotap: [^\n]*/slow_member_empty.json: verdict.slow_members\\[0\\].name: missing \\(expected a string\\)\n$"
  compare ${attribution_data}/slow_member_empty.json ${attribution_data}/valid.json)
iotap_cli_test(cli_compare_devices_string 2
  "^iotap: [^\n]*/devices_string.json: devices: expected an array, found a string\n$"
  compare ${attribution_data}/valid.json ${attribution_data}/devices_string.json)
iotap_cli_test(cli_compare_device_without_name 2
  "^iotap: [^\n]*/device_without_name.json: devices\\[1\\].name: missing \\(expected a string\\)\n$"
  compare ${attribution_data}/valid.json ${attribution_data}/device_without_name.json)
iotap_cli_test(cli_compare_schema_null 2
  "^iotap: [^\n]*/schema_null.json is not an iotap attribution \\(the --json of iotap attribute, diagnose or replay, schema iotap.attribution/3 or iotap.attribution/2\\) nor a recording\n$"
  compare ${attribution_data}/schema_null.json ${attribution_data}/valid.json)
# A recording's header with a field of the wrong type: named with its byte (before: exit 70).
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/header_source_number.rec"
  "iotap-recording 1\nheader {\"source\":5}\n0 0 R 0 4096 4096 9 9:0 1 read\nend {\"requests\":1}\n")
iotap_cli_test(cli_compare_recording_header_source_number 2
  "^iotap: [^\n]*/header_source_number.rec: byte 18 \\(line 2\\): the header's \"source\" is '5', not a string\n$"
  compare "${CMAKE_CURRENT_BINARY_DIR}/header_source_number.rec" ${attribution_data}/valid.json)

# A database's recording (issue 29): its files' layout, when present, is a list.
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/header_files_number.rec"
  "iotap-recording 1\nheader {\"files\":5}\n0 0 R 0 8192 8192 9 9:0 0 smgr_read\nend {\"requests\":1}\n")
iotap_cli_test(cli_replay_recording_files_not_a_list 2
  "^iotap: [^\n]*/header_files_number.rec: byte 18 \\(line 2\\): the header's \"files\" is '5', not an array \\(iotap replay takes what iotap record wrote\\)\n$"
  replay "${CMAKE_CURRENT_BINARY_DIR}/header_files_number.rec" --target vm --stack "raid0(ram*2)")

# issue 27: special files as inputs. Only a regular file is read: /dev/zero never ends, a FIFO
# would block the open; neither is opened.
iotap_cli_test(cli_report_dev_zero 2
  "^iotap: /dev/zero is a character device, not an attribution \\(name a file on disk\\)\n$"
  report /dev/zero -o ${CMAKE_CURRENT_BINARY_DIR}/dev_zero.html)
iotap_cli_test(cli_compare_dev_zero 2
  "^iotap: /dev/zero is a character device, not an attribution or a recording \\(name a file on disk\\)\n$"
  compare /dev/zero ${attribution_data}/valid.json)
iotap_cli_test(cli_replay_dev_zero 2
  "^iotap: /dev/zero is a character device, not a recording \\(iotap replay takes what iotap record wrote\\)\n$"
  replay /dev/zero --target vm --stack "raid0(ram*2)")
iotap_cli_test(cli_compare_directory 2
  "^iotap: /tmp is a directory, not an attribution or a recording \\(name a file on disk\\)\n$"
  compare /tmp ${attribution_data}/valid.json)
iotap_cli_fifo_test(cli_report_fifo 2
  "^iotap: [^\n]*/cli_report_fifo.json is a FIFO \\(named pipe\\), not an attribution \\(name a file on disk\\)\n$"
  ${CMAKE_CURRENT_BINARY_DIR}/cli_report_fifo.json
  report ${CMAKE_CURRENT_BINARY_DIR}/cli_report_fifo.json -o ${CMAKE_CURRENT_BINARY_DIR}/fifo.html)
iotap_cli_fifo_test(cli_compare_fifo 2
  "^iotap: [^\n]*/cli_compare_fifo.json is a FIFO \\(named pipe\\), not an attribution or a recording \\(name a file on disk\\)\n$"
  ${CMAKE_CURRENT_BINARY_DIR}/cli_compare_fifo.json
  compare ${attribution_data}/valid.json ${CMAKE_CURRENT_BINARY_DIR}/cli_compare_fifo.json)
iotap_cli_fifo_test(cli_replay_fifo 2
  "^iotap: [^\n]*/cli_replay_fifo.rec is a FIFO \\(named pipe\\), not a recording \\(iotap replay takes what iotap record wrote\\)\n$"
  ${CMAKE_CURRENT_BINARY_DIR}/cli_replay_fifo.rec
  replay ${CMAKE_CURRENT_BINARY_DIR}/cli_replay_fifo.rec --target vm --stack "raid0(ram*2)")

# issue 27: an output that is the verb's input is refused before anything is written (the same
# file by device and inode, however it is spelt). Copies, so that a failure spoils nothing.
file(COPY ${attribution_data}/valid.json DESTINATION ${CMAKE_CURRENT_BINARY_DIR}/same_file)
file(COPY ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/recording/hasher.rec
  DESTINATION ${CMAKE_CURRENT_BINARY_DIR}/same_file)
set(same ${CMAKE_CURRENT_BINARY_DIR}/same_file)
iotap_cli_test(cli_report_output_is_its_input 2
  "^iotap: -o '[^\n]*/same_file/./valid.json' is the attribution it reads \\('[^\n]*/same_file/valid.json'\\): writing it would replace it; name another file\n$"
  report ${same}/valid.json -o ${same}/./valid.json)
iotap_cli_test(cli_compare_output_is_an_input 2
  "^iotap: -o '[^\n]*/same_file/valid.json' is the file it compares \\('[^\n]*/same_file/valid.json'\\): writing it would replace it; name another file\n$"
  compare ${same}/valid.json ${same}/hasher.rec -o ${same}/valid.json)
iotap_cli_test(cli_replay_output_is_its_recording 2
  "^iotap: -o '[^\n]*/same_file/hasher.rec' is the recording it replays \\('[^\n]*/same_file/hasher.rec'\\): writing it would replace it; name another file\n$"
  replay ${same}/hasher.rec -o ${same}/hasher.rec --target vm --stack "raid0(ram*2)")
