# Unit tests of workloads/block_hasher: the core library in-process, the real binary on files
# the tests create, and the USDT notes in the binary. Test sources live next to the workload.
set(_bh_dir "${CMAKE_SOURCE_DIR}/workloads/block_hasher")
set(_bh_tests "${_bh_dir}/tests")

iotap_unit_test(block_hasher_core_test
  SOURCES "${_bh_tests}/options_test.cpp" "${_bh_tests}/digest_test.cpp"
          "${_bh_tests}/device_test.cpp" "${_bh_tests}/reader_test.cpp"
          "${_bh_tests}/report_test.cpp"
  LIBS block_hasher_core OpenSSL::Crypto PkgConfig::XXHASH nlohmann_json::nlohmann_json)
target_include_directories(block_hasher_core_test PRIVATE "${_bh_tests}")

# The binary itself, fork/exec'd by a gtest; its path is compiled in.
iotap_unit_test(block_hasher_cli_test
  SOURCES "${_bh_tests}/cli_test.cpp"
  LIBS OpenSSL::Crypto PkgConfig::XXHASH nlohmann_json::nlohmann_json)
target_include_directories(block_hasher_cli_test PRIVATE "${_bh_tests}")
target_compile_definitions(block_hasher_cli_test PRIVATE "BLOCK_HASHER_BIN=\"$<TARGET_FILE:block_hasher>\"")
add_dependencies(block_hasher_cli_test block_hasher)

# The USDT notes, probe by probe (tests/unit/usdt_notes.cmake).
iotap_usdt_note_tests(block_hasher block_hasher
  "run_start|8 8 -4 8 -4"
  "run_end|8 8 8 8"
  "thread_start|-4 -4"
  "thread_end|-4 8 8 8"
  "read_start|8 -4 8 8 8"
  "read_done|8 -4 8 8 8 -8"
  "hash_start|8 -4 8"
  "hash_done|8 -4 8")

# The semaphores live in their own section, where stap looks for them.
add_test(NAME block_hasher_usdt_semaphore_section
         COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${IOTAP_READELF};-S;-W;$<TARGET_FILE:block_hasher>"
                 -DEXPECT_EXIT=0 "-DEXPECT_REGEX=\\.probes[ ]+PROGBITS"
                 -P "${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake")
set_tests_properties(block_hasher_usdt_semaphore_section PROPERTIES LABELS unit)

# What the probes cost with nothing attached: instructions per read under valgrind's
# cachegrind, against block_hasher built without them (bench/CMakeLists.txt). Not in a
# sanitized build: valgrind cannot run AddressSanitizer's binaries, and a sanitizer build
# counts its own checks, not the program's.
if(NOT IOTAP_SANITIZE AND NOT IOTAP_FUZZ_ENABLED)
  iotap_unit_test(block_hasher_probe_cost_test
    SOURCES "${_bh_tests}/probe_cost_test.cpp"
    LIBS iotap_util)
  target_include_directories(block_hasher_probe_cost_test PRIVATE "${_bh_tests}")
  target_compile_definitions(block_hasher_probe_cost_test PRIVATE
    "BLOCK_HASHER_BIN=\"$<TARGET_FILE:block_hasher>\""
    "BARE_BLOCK_HASHER_BIN=\"$<TARGET_FILE:block_hasher_bare>\"")
  add_dependencies(block_hasher_probe_cost_test block_hasher block_hasher_bare)
endif()
