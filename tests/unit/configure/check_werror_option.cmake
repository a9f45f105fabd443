# cmake -DSOURCE_DIR=... -DWORK_DIR=... -DC_COMPILER=... -DCXX_COMPILER=... -DGCC12=ON|OFF -P this
# Configures the project twice as a packager would (Release) and reads the compile commands:
# by default warnings are not errors (GCC 12's Release -Wrestrict false positive must not stop
# a user's build), and IOTAP_WERROR=ON makes them errors, with that false positive switched off.
function(configure name)
  set(dir "${WORK_DIR}/${name}")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${dir}" -DCMAKE_BUILD_TYPE=Release
            "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" ${ARGN}
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "configuring ${name} failed (${status}):\n${output}")
  endif()
  file(READ "${dir}/compile_commands.json" commands)
  set(commands "${commands}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")

configure(default)
if(commands MATCHES "-Werror")
  message(FATAL_ERROR "a default Release build treats warnings as errors")
endif()

configure(werror -DIOTAP_WERROR=ON)
# A command may hold escaped quotes (-DIOTAP_VERSION=\"0.1.0\").
string(REGEX MATCH "\"command\": \"([^\"\\]|\\\\.)*kernel_symbols\\.cpp\"" command "${commands}")
if(NOT command MATCHES " -Werror ")
  message(FATAL_ERROR "IOTAP_WERROR=ON does not make warnings errors: ${command}")
endif()
if(GCC12 AND NOT command MATCHES " -Wno-restrict ")
  message(FATAL_ERROR "GCC 12 Release build without -Wno-restrict: ${command}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "Release: warnings are errors only with IOTAP_WERROR=ON")
