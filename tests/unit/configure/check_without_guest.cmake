# cmake -DSOURCE_DIR=... -DWORK_DIR=... -DC_COMPILER=... -DCXX_COMPILER=... -P this
# Configures the project with no guest (IOTAP_GUEST_KERNEL=none, as on a machine without the
# guest kernel or stap): configure succeeds and says so, and the stap and vm tiers are one
# failing test each that says what to install, so `ctest -L vm` cannot pass having run nothing.
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}" -DIOTAP_GUEST_KERNEL=none
          "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "configuring without a guest failed (${status}):\n${output}")
endif()
if(NOT output MATCHES "building without the guest: configured with IOTAP_GUEST_KERNEL=none")
  message(FATAL_ERROR "configure did not say it builds without the guest:\n${output}")
endif()
foreach(tier IN ITEMS stap vm)
  execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK_DIR}" -L "^${tier}$"
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(status EQUAL 0)
    message(FATAL_ERROR "ctest -L ${tier} passed without a guest:\n${output}")
  endif()
  if(NOT output MATCHES "${tier}_tier_unavailable" OR NOT output MATCHES "1 tests failed out of 1\n")
    message(FATAL_ERROR "ctest -L ${tier} without a guest should run one failing test:\n${output}")
  endif()
endforeach()
execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK_DIR}" -R vm_tier_unavailable
                        --output-on-failure
                OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT output MATCHES "the vm tier cannot run: configured with IOTAP_GUEST_KERNEL=none")
  message(FATAL_ERROR "the failing vm test does not say why:\n${output}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "without a guest: configure succeeds; the stap and vm tiers fail, saying why")
