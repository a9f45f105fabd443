# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DBUILD_IOTAP=... -DPREFIX=... -P this
# Installs the build into PREFIX and checks that the installed iotap finds its tapsets, examples
# and the guest's init under PREFIX/share/iotap, while the build tree's iotap reads the sources.
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${status}):\n${output}")
endif()
foreach(file IN ITEMS bin/iotap share/iotap/examples/iotime.stp share/iotap/examples/iotime.meta
                      share/iotap/tapsets/iotap_events.stp share/iotap/guest/init.sh
                      libexec/iotap/block_hasher/block_hasher)
  if(NOT EXISTS "${PREFIX}/${file}")
    message(FATAL_ERROR "not installed: ${PREFIX}/${file}")
  endif()
endforeach()

function(expect_version iotap expected_kind expected_root)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "XDG_CACHE_HOME=${PREFIX}/cache"
                          "${iotap}" --version
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0 OR NOT output MATCHES "^iotap [0-9.]+ \\(${expected_kind}\\)\n")
    message(FATAL_ERROR "${iotap} --version (${status}):\n${output}")
  endif()
  foreach(line IN ITEMS "tapsets: +${expected_root}/tapsets\n" "examples: +${expected_root}/examples\n")
    if(NOT output MATCHES "${line}")
      message(FATAL_ERROR "${iotap} --version does not show ${line}:\n${output}")
    endif()
  endforeach()
  set(output "${output}" PARENT_SCOPE)
endfunction()

expect_version("${PREFIX}/bin/iotap" installed "${PREFIX}/share/iotap")
if(NOT output MATCHES "guest init: +${PREFIX}/share/iotap/guest/init.sh\ncache: +${PREFIX}/cache/iotap\n")
  message(FATAL_ERROR "the installed iotap's guest init or cache is wrong:\n${output}")
endif()
expect_version("${BUILD_IOTAP}" "build tree" "${SOURCE_DIR}")
file(REMOVE_RECURSE "${PREFIX}")
message(STATUS "installed iotap reads PREFIX/share/iotap; the build's reads the source tree")
