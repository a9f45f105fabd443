# iotap_unit_test(NAME SOURCES src... LIBS lib...): a GoogleTest binary labelled `unit`.
function(iotap_unit_test name)
  cmake_parse_arguments(arg "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${arg_SOURCES})
  # A unit test may include its library's private headers (cmake/IotapLibrary.cmake).
  set(libs "")
  foreach(lib IN LISTS arg_LIBS)
    if(TARGET ${lib}_internals)
      list(APPEND libs ${lib}_internals)
    else()
      list(APPEND libs ${lib})
    endif()
  endforeach()
  target_link_libraries(${name} PRIVATE ${libs} GTest::gtest_main)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS unit TIMEOUT 60)
endfunction()

# iotap_cli_test(NAME STATUS REGEX ARGS...): runs `iotap ARGS...` and checks its exit status and
# its output (stdout and stderr together) against REGEX; labelled `unit`.
function(iotap_cli_test name status regex)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:iotap>;${ARGN}"
                   -DEXPECT_EXIT=${status} "-DEXPECT_REGEX=${regex}"
                   -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set_tests_properties(${name} PROPERTIES LABELS unit TIMEOUT 60)
endfunction()

# iotap_cli_fifo_test(NAME STATUS REGEX FIFO ARGS...): the same, with FIFO made a named pipe
# that nothing writes to while `iotap ARGS...` runs; a reader that opens it blocking hangs until
# the test's timeout.
function(iotap_cli_fifo_test name status regex fifo)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:iotap>;${ARGN}"
                   -DEXPECT_EXIT=${status} "-DEXPECT_REGEX=${regex}" "-DMAKE_FIFO=${fifo}"
                   -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set_tests_properties(${name} PROPERTIES LABELS unit TIMEOUT 30)
endfunction()
