# cmake -DBUILD_DIR=... -DPREFIX=... -P this
# An installed iotap, run for real: `cmake --install` into PREFIX, then PREFIX/bin/iotap attributes
# block_hasher's reads in the guest with only what it found under PREFIX (its example script,
# tapsets, guest init, adapted stap runtime and the workload by name).
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE output)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${status}):\n${output}")
endif()
# Its own cache (XDG_CACHE_HOME) and its own stap runtime path make this one cold stap compile
# (about 2 minutes on an idle machine) and one guest run.
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "XDG_CACHE_HOME=${PREFIX}/cache"
          "${PREFIX}/bin/iotap" attribute --json --target vm --stack "raid0(ram*2)"
          -c "block_hasher -d __DEV__ -b 65536 -t 2 -n 8 --direct"
  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
file(REMOVE_RECURSE "${PREFIX}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the installed iotap failed (${status}):\n${errors}\n${output}")
endif()
string(JSON count ERROR_VARIABLE json_error GET "${output}" requests count)
if(json_error OR NOT count EQUAL 8)
  message(FATAL_ERROR "the installed iotap should attribute 8 reads, got '${count}' ${json_error}:\n${output}")
endif()
message(STATUS "the installed iotap attributed ${count} reads in the guest")
