# USDT note reader: unit tests on real binaries built here, a CLI test of `iotap probes`, and
# the note parser's fuzz target (libFuzzer with clang and IOTAP_FUZZ; a replay test always).
set(usdt_dir ${CMAKE_SOURCE_DIR}/tests/unit/usdt)

# Programs made to be read. -O2 whatever the build type, so operand kinds stay as tested.
add_executable(usdt_testprog ${usdt_dir}/usdt_testprog.c ${usdt_dir}/usdt_testprog_semaphore.c)
# clang -Wpedantic objects to sys/sdt.h's own STAP_PROBE macros (empty variadic arguments), a
# GNU extension the header relies on deliberately.
target_compile_options(usdt_testprog PRIVATE -O2
  $<$<C_COMPILER_ID:Clang>:-Wno-gnu-zero-variadic-macro-arguments>)
add_executable(usdt_noprobes ${usdt_dir}/usdt_noprobes.c)
iotap_not_sanitized(usdt_testprog usdt_noprobes)

add_library(usdt_elf_image STATIC ${usdt_dir}/elf_image.cpp)
target_link_libraries(usdt_elf_image PUBLIC iotap_usdt_internals)

iotap_unit_test(usdt_test
  SOURCES ${usdt_dir}/probe_arguments_test.cpp
          ${usdt_dir}/note_descriptor_test.cpp
          ${usdt_dir}/stapsdt_notes_test.cpp
          ${usdt_dir}/file_type_test.cpp
  LIBS iotap_usdt usdt_elf_image)
target_compile_definitions(usdt_test PRIVATE
  USDT_TESTPROG="$<TARGET_FILE:usdt_testprog>"
  USDT_NOPROBES="$<TARGET_FILE:usdt_noprobes>"
  USDT_TEXT_FILE="${usdt_dir}/usdt_noprobes.c")
add_dependencies(usdt_test usdt_testprog usdt_noprobes)

# The libFuzzer binary and its smoke test (IOTAP_FUZZ, clang; cmake/Sanitizers.cmake), and in
# every build usdt_note_descriptor_fuzz_replay: the corpus replayed without libFuzzer.
iotap_fuzz_target(usdt_note_descriptor_fuzz
  SOURCES ${usdt_dir}/note_descriptor_fuzz.cpp
  LIBS iotap_usdt usdt_elf_image
  CORPUS ${usdt_dir}/corpus)

# `iotap probes` end to end, checking exit status and output together.
iotap_cli_test(usdt_cli_table 0
  "iotap_test +typed +s8 u16 s32 u64 u64 +- +0x[0-9a-f]+\n.*iotap_test +guarded +u64 s16 +0x[0-9a-f]+ +0x[0-9a-f]+\n5 probes in [^\n]*usdt_testprog"
  probes $<TARGET_FILE:usdt_testprog>)
iotap_cli_test(usdt_cli_json 0
  "\"provider\": \"iotap_test\",\n *\"name\": \"constant\",\n *\"pc\": \"0x[0-9a-f]+\",\n *\"semaphore\": null,\n *\"args\": \\[\n *{\n *\"size\": 4,\n *\"signed\": true,\n *\"float\": false,\n *\"operand\": \"\\$-7\"\n *}\n *\\]"
  probes --json $<TARGET_FILE:usdt_testprog>)
iotap_cli_test(usdt_cli_json_semaphore 0
  "\"name\": \"guarded\",\n *\"pc\": \"0x[0-9a-f]+\",\n *\"semaphore\": \"0x[0-9a-f]+\""
  probes $<TARGET_FILE:usdt_testprog> --json)
iotap_cli_test(usdt_cli_not_elf 2
  "iotap: [^\n]*usdt_noprobes.c is not an ELF file \\("
  probes ${usdt_dir}/usdt_noprobes.c)
iotap_cli_test(usdt_cli_no_probes 2
  "iotap: [^\n]*usdt_noprobes has no USDT probes \\(no .note.stapsdt section\\); build it with <sys/sdt.h> probes"
  probes $<TARGET_FILE:usdt_noprobes>)
# --json on a binary without probes is an empty list, not an error (the table form still is).
iotap_cli_test(usdt_cli_json_no_probes 0
  "^{\n  \"binary\": \"[^\n]*usdt_noprobes\",\n  \"probes\": \\[\\],\n  \"problems\": \\[\\]\n}\n$"
  probes --json $<TARGET_FILE:usdt_noprobes>)
# Only regular files are opened: a FIFO would block the open forever.
iotap_cli_fifo_test(usdt_cli_fifo 2
  "^iotap: [^\n]*usdt_fifo is a FIFO \\(named pipe\\), not a program \\(name a compiled program or shared library on disk\\)\n$"
  ${CMAKE_CURRENT_BINARY_DIR}/usdt_fifo probes ${CMAKE_CURRENT_BINARY_DIR}/usdt_fifo)
iotap_cli_test(usdt_cli_device 2
  "^iotap: /dev/null is a character device, not a program \\(" probes /dev/null)
iotap_cli_test(usdt_cli_missing 2 "iotap: /nonexistent does not exist" probes /nonexistent)
iotap_cli_test(usdt_cli_no_binary 2 "iotap: probes needs a BINARY" probes)
# A path with a quote and a backslash must come out as valid JSON.
set(awkward_copy "${CMAKE_CURRENT_BINARY_DIR}/usdt testprog \"quoted\" back\\slash")
add_test(NAME usdt_cli_json_escaping
         COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:iotap>;probes;--json;${awkward_copy}"
                 "-DCOPY_FROM=$<TARGET_FILE:usdt_testprog>" "-DCOPY_TO=${awkward_copy}"
                 -DEXPECT_EXIT=0 "-DEXPECT_REGEX=\"binary\": \"[^\n]*usdt testprog \\\\\"quoted\\\\\" back\\\\\\\\slash\","
                 -P ${CMAKE_SOURCE_DIR}/cmake/ExpectExit.cmake)
set_tests_properties(usdt_cli_json_escaping PROPERTIES LABELS unit TIMEOUT 60)

# The workload's probes as the tapsets expect them (workloads/block_hasher/probes.d).
if(TARGET block_hasher)
  iotap_cli_test(usdt_cli_block_hasher 0
    "block_hasher +read_start +u64 s32 u64 u64 u64 +0x[0-9a-f]+ +0x[0-9a-f]+\n.*block_hasher +read_done +u64 s32 u64 u64 u64 s64 +0x[0-9a-f]+ +0x"
    probes $<TARGET_FILE:block_hasher>)
endif()
iotap_cli_test(usdt_cli_help 0 "usage: iotap probes BINARY.*--json" probes --help)
