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

# A machine without stap or the guest kernel still builds the engine and the unit tiers; the
# stap and vm tiers then fail, saying what to install (cmake/GuestKernel.cmake).
add_test(NAME build_without_guest
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/without_guest
                 -DC_COMPILER=${CMAKE_C_COMPILER} -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/configure/check_without_guest.cmake)
set_tests_properties(build_without_guest PROPERTIES LABELS unit TIMEOUT 300)

# `cmake --install`: the installed iotap finds its data next to itself (launcher/util/data_paths.h).
add_test(NAME install_layout
         COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -DBUILD_IOTAP=$<TARGET_FILE:iotap> -DPREFIX=${CMAKE_CURRENT_BINARY_DIR}/install_layout
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/configure/check_install_layout.cmake)
set_tests_properties(install_layout PROPERTIES LABELS unit TIMEOUT 120)
