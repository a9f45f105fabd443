# Unit tests for iotap callgraph (issue 4): the event tokenizer, the per-thread tree and the
# formats on output recorded in the guest (tests/unit/data/callgraph_*.txt), the probe points,
# and the debug-info check on block_hasher copies stripped here with objcopy.
set(callgraph_dir ${CMAKE_SOURCE_DIR}/tests/unit/callgraph)
set(bh_stripped ${CMAKE_CURRENT_BINARY_DIR}/block_hasher_stripped)
set(bh_no_debug ${CMAKE_CURRENT_BINARY_DIR}/block_hasher_no_debug_info)
add_custom_command(OUTPUT ${bh_stripped} ${bh_no_debug}
  COMMAND ${CMAKE_OBJCOPY} --strip-all $<TARGET_FILE:block_hasher> ${bh_stripped}
  COMMAND ${CMAKE_OBJCOPY} --strip-debug $<TARGET_FILE:block_hasher> ${bh_no_debug}
  DEPENDS block_hasher
  COMMENT "block_hasher without symbols and without debug info, for iotap callgraph's checks"
  VERBATIM)
add_custom_target(callgraph_test_binaries ALL DEPENDS ${bh_stripped} ${bh_no_debug})

iotap_unit_test(callgraph_test
  SOURCES ${callgraph_dir}/recorded.cpp
          ${callgraph_dir}/call_event_test.cpp
          ${callgraph_dir}/call_tree_test.cpp
          ${callgraph_dir}/formats_test.cpp
          ${callgraph_dir}/probe_points_test.cpp
          ${callgraph_dir}/debug_info_check_test.cpp
  LIBS iotap_callgraph iotap_guest iotap_util)
target_compile_definitions(callgraph_test PRIVATE
  CALLGRAPH_DATA_DIR="${CMAKE_SOURCE_DIR}/tests/unit/data"
  BLOCK_HASHER="$<TARGET_FILE:block_hasher>"
  BLOCK_HASHER_STRIPPED="${bh_stripped}"
  BLOCK_HASHER_NO_DEBUG_INFO="${bh_no_debug}"
  NOT_ELF_FILE="${callgraph_dir}/probe_points_test.cpp"
  GUEST_KERNEL="${IOTAP_GUEST_KERNEL}")
add_dependencies(callgraph_test callgraph_test_binaries)

# The command line: help, and the binaries it refuses before compiling anything (exit 2, one
# line, no temp file or -o file left behind).
iotap_cli_test(callgraph_cli_help 0
  "usage: iotap callgraph -c CMD.*How to read it.*--format folded.*--format perfetto.*iotap.callgraph/1"
  callgraph --help)
iotap_cli_test(callgraph_cli_needs_a_program 2 "give the program to trace: -c" callgraph --target vm)
iotap_cli_test(callgraph_cli_bad_format 2 "--format must be text, folded, perfetto or raw"
  callgraph --format svg -c ${bh_stripped})
iotap_cli_test(callgraph_cli_bad_kernel_glob 2 "--kernel 'raid0:': give MODULE:GLOB"
  callgraph --kernel raid0: -c $<TARGET_FILE:block_hasher> --target vm)
iotap_cli_test(callgraph_cli_kernel_glob_matches_nothing 2
  "--kernel raid0:nothing_\\*: no function of [^\n]*raid0.ko matches"
  callgraph --kernel raid0:nothing_* -c $<TARGET_FILE:block_hasher> --target vm)
foreach(kind stripped no_debug_info)
  if(kind STREQUAL "stripped")
    set(binary ${bh_stripped})
    set(expected "^iotap: [^\n]*block_hasher_stripped is stripped \\(no .symtab\\): rebuild it with -g and without stripping[^\n]*\n$")
  else()
    set(binary ${bh_no_debug})
    set(expected "^iotap: [^\n]*block_hasher_no_debug_info has no debug info \\(no .debug_info\\): rebuild it with -g[^\n]*\n$")
  endif()
  set(scratch ${CMAKE_CURRENT_BINARY_DIR}/callgraph_cli_${kind})
  add_test(NAME callgraph_cli_${kind}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:iotap>;callgraph;--target;vm;-c;${binary};-o;${scratch}/out.txt"
                   -DEXPECT_EXIT=2 "-DEXPECT_REGEX=${expected}" -DSCRATCH=${scratch}
                   -P ${callgraph_dir}/expect_nothing_left.cmake)
  set_tests_properties(callgraph_cli_${kind} PROPERTIES LABELS unit TIMEOUT 60)
endforeach()
