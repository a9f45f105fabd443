# Used by iotap_cli_test (cmake/Testing.cmake):
# cmake -DCOMMAND="prog;arg;..." -DEXPECT_EXIT=N -DEXPECT_REGEX=RE [-DREJECT_REGEX=RE]
#       [-DCOPY_FROM=FILE -DCOPY_TO=FILE] [-DMAKE_FIFO=PATH] -P cmake/ExpectExit.cmake
# A CLI test that checks the exit status and the output together; PASS_REGULAR_EXPRESSION alone
# ignores the exit status. COPY_* puts a binary under an awkward name first. MAKE_FIFO makes a
# named pipe (nothing ever writes to it) for the command to be given, and removes it after.
if(DEFINED COPY_FROM)
  file(COPY_FILE "${COPY_FROM}" "${COPY_TO}")
endif()
if(DEFINED MAKE_FIFO)
  file(REMOVE "${MAKE_FIFO}")
  execute_process(COMMAND mkfifo "${MAKE_FIFO}" COMMAND_ERROR_IS_FATAL ANY)
endif()
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(DEFINED MAKE_FIFO)
  file(REMOVE "${MAKE_FIFO}")
endif()
message("${out}${err}")
if(NOT status STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "exit status ${status}, expected ${EXPECT_EXIT}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match: ${EXPECT_REGEX}")
endif()
if(DEFINED REJECT_REGEX AND "${out}${err}" MATCHES "${REJECT_REGEX}")
  message(FATAL_ERROR "output matches what it must not: ${REJECT_REGEX}")
endif()
