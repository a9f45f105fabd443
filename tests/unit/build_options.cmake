# The build's own options, checked by configuring the project again (no compile).
set(gcc12 OFF)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
   AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  set(gcc12 ON)
endif()
add_test(NAME build_werror_option
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/werror_option
                 -DC_COMPILER=${CMAKE_C_COMPILER} -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                 -DGCC12=${gcc12} -P ${CMAKE_CURRENT_SOURCE_DIR}/configure/check_werror_option.cmake)
set_tests_properties(build_werror_option PROPERTIES LABELS unit TIMEOUT 300)
