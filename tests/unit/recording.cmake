# Unit tests for recordings (issue 12): the format's writer and reader round trip, every kind of
# damage a reader must name with its byte offset, and the fio iolog conversion.
iotap_unit_test(recording_test
  SOURCES recording/format_test.cpp recording/fio_iolog_test.cpp recording/fidelity_test.cpp
          recording/compare_test.cpp
  LIBS iotap_recording iotap_compare)

# iotap record's bad input: one line, exit 2, before anything is compiled or booted.
iotap_cli_test(cli_record_help 0 "usage: iotap record -c CMD.*--format fio.*--replay_redirect" record --help)
iotap_cli_test(cli_record_bad_format 2
  "^iotap: --format must be 'iotap' \\(iotap's own recording\\) or 'fio' \\(fio's iolog v3\\), not 'csv'\n$"
  record --format csv -c block_hasher)
iotap_cli_test(cli_record_needs_a_program 2 "give the program whose requests to follow: -c"
  record --target vm --stack "raid0(ram*2)")
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
  "^iotap: [^\n]*/run.json is not an iotap attribution \\(the --json of iotap attribute, diagnose or replay, schema iotap.attribution/2\\) nor a recording\n$"
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
