# Unit tests of workloads/block_hasher: the core library in-process, the real binary on files
# the tests create, and the USDT notes in the binary. Test sources live next to the workload.
set(_bh_dir "${CMAKE_SOURCE_DIR}/workloads/block_hasher")
set(_bh_tests "${_bh_dir}/tests")

iotap_unit_test(block_hasher_core_test
  SOURCES "${_bh_tests}/options_test.cpp" "${_bh_tests}/digest_test.cpp"
          "${_bh_tests}/device_test.cpp" "${_bh_tests}/reader_test.cpp"
          "${_bh_tests}/report_test.cpp"
  LIBS block_hasher_core OpenSSL::Crypto PkgConfig::XXHASH)
target_include_directories(block_hasher_core_test PRIVATE "${_bh_tests}")

# The binary itself, fork/exec'd by a gtest; its path is compiled in.
iotap_unit_test(block_hasher_cli_test
  SOURCES "${_bh_tests}/cli_test.cpp"
  LIBS OpenSSL::Crypto PkgConfig::XXHASH)
target_include_directories(block_hasher_cli_test PRIVATE "${_bh_tests}")
target_compile_definitions(block_hasher_cli_test PRIVATE "BLOCK_HASHER_BIN=\"$<TARGET_FILE:block_hasher>\"")
add_dependencies(block_hasher_cli_test block_hasher)

# The USDT notes: one test per probe, each requiring provider, name, a semaphore (from
# dtrace -G) and the argument sizes of the signature in probes.d (8: 64-bit unsigned or
# pointer, -4: int, -8: int64_t). Tapsets read arguments by position, so a reordered or
# retyped argument fails here.
# GNU readelf (binutils): it decodes NT_STAPSDT notes; llvm-readelf, CMAKE_READELF in a clang
# build, does not.
find_program(_bh_readelf NAMES readelf REQUIRED)
set(_bh_arg "[^ \n]+")
set(_bh_probes
  "run_start|8 8 -4 8 -4"
  "run_end|8 8 8 8"
  "thread_start|-4 -4"
  "thread_end|-4 8 8 8"
  "read_start|8 -4 8 8 8"
  "read_done|8 -4 8 8 8 -8"
  "hash_start|8 -4 8"
  "hash_done|8 -4 8")
foreach(_bh_probe IN LISTS _bh_probes)
  string(REPLACE "|" ";" _bh_parts "${_bh_probe}")
  list(GET _bh_parts 0 _bh_name)
  list(GET _bh_parts 1 _bh_sizes)
  string(REPLACE " " ";" _bh_sizes "${_bh_sizes}")
  set(_bh_args "")
  foreach(_bh_size IN LISTS _bh_sizes)
    string(APPEND _bh_args " ${_bh_size}@${_bh_arg}")
  endforeach()
  # ExpectExit: readelf must succeed too (PASS_REGULAR_EXPRESSION alone ignores its status).
  add_test(NAME block_hasher_usdt_${_bh_name}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${_bh_readelf};-n;$<TARGET_FILE:block_hasher>"
                   -DEXPECT_EXIT=0
                   "-DEXPECT_REGEX=Provider: block_hasher\n[ ]*Name: ${_bh_name}\n[ ]*Location: [^\n]*Semaphore: 0x0*[1-9a-f][0-9a-f]*\n[ ]*Arguments:${_bh_args}\n"
                   -P "${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake")
  set_tests_properties(block_hasher_usdt_${_bh_name} PROPERTIES LABELS unit)
endforeach()

# The semaphores live in their own section, where stap looks for them.
add_test(NAME block_hasher_usdt_semaphore_section
         COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${_bh_readelf};-S;-W;$<TARGET_FILE:block_hasher>"
                 -DEXPECT_EXIT=0 "-DEXPECT_REGEX=\\.probes[ ]+PROGBITS"
                 -P "${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake")
set_tests_properties(block_hasher_usdt_semaphore_section PROPERTIES LABELS unit)
