# cmake -DIOTAP=... -DPROVIDER=NAME|FILE [-DPROGRAM=PATH] -DSCRIPT=OUT.stp -DSTAP_FOR_GUEST=...
#       "-DSTAP_ARGS=ARG;ARG;..." -P provider_compile.cmake
# The script iotap writes for a provider (iotap providers NAME --script), compiled for the
# guest kernel like every example: what attribute --requests usdt:NAME would compile.
set(command "${IOTAP}" providers "${PROVIDER}" --script)
if(PROGRAM)
  list(APPEND command --program "${PROGRAM}")
endif()
execute_process(COMMAND ${command} OUTPUT_FILE "${SCRIPT}" ERROR_VARIABLE error
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "iotap providers ${PROVIDER} --script failed (${status}): ${error}")
endif()
# STAP_ARGS is a CMake list (stap_common in CMakeLists.txt, and -m NAME).
execute_process(COMMAND "${STAP_FOR_GUEST}" ${STAP_ARGS} "${SCRIPT}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "stap -p4 of the script for ${PROVIDER} failed (${status})")
endif()
