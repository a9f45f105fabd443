# The examples' `test_installcheck:` lines, run for real in the guest (as bpftrace's runtime
# tests read their cases from files): one vm-labelled test per line, which runs the line's
# command with the iotap this build made, from the source tree (so examples/X.stp resolves),
# and checks that it exits 0 and, when the next line is `test_installcheck_output: REGEX`,
# that its output (stdout and stderr) matches REGEX. Format: docs/toolbox.md.
file(GLOB installcheck_metas CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/examples/*.meta")
foreach(meta IN LISTS installcheck_metas)
  get_filename_component(example "${meta}" NAME_WE)
  file(STRINGS "${meta}" meta_lines REGEX "^test_installcheck")
  set(case 0)
  set(test_name "")
  foreach(meta_line IN LISTS meta_lines)
    if(meta_line MATCHES "^test_installcheck_output:[ \t]*(.*)$")
      if(NOT test_name)
        message(FATAL_ERROR "${meta}: test_installcheck_output comes after a test_installcheck line")
      endif()
      if(NOT "${${test_name}_output}" STREQUAL "")
        message(FATAL_ERROR "${meta}: one test_installcheck_output per test_installcheck line")
      endif()
      set(${test_name}_output "${CMAKE_MATCH_1}")
      continue()
    endif()
    if(NOT meta_line MATCHES "^test_installcheck:[ \t]*iotap[ \t]+(.*)$")
      message(FATAL_ERROR "${meta}: a test_installcheck line must be an iotap command: ${meta_line}")
    endif()
    separate_arguments(installcheck_args UNIX_COMMAND "${CMAKE_MATCH_1}")
    set(test_name installcheck_${example})
    if(case GREATER 0)
      set(test_name installcheck_${example}_${case})
    endif()
    set(${test_name}_args ${installcheck_args})
    set(${test_name}_output "")
    list(APPEND installcheck_tests ${test_name})
    math(EXPR case "${case} + 1")
  endforeach()
endforeach()
foreach(test_name IN LISTS installcheck_tests)
  set(regex ".")
  if(NOT "${${test_name}_output}" STREQUAL "")
    set(regex "${${test_name}_output}")
  endif()
  list(JOIN ${test_name}_args ";" command)
  add_test(NAME ${test_name}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:iotap>;${command}" -DEXPECT_EXIT=0
                   "-DEXPECT_REGEX=${regex}" "-DGUESTS_DIR=${IOTAP_TEST_GUESTS_DIR}"
                   "-DSCRIPT=${CMAKE_SOURCE_DIR}/cmake/ExpectExit.cmake"
                   -P "${CMAKE_CURRENT_SOURCE_DIR}/guest_lane.cmake"
           WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
  set_tests_properties(${test_name} PROPERTIES LABELS vm RESOURCE_GROUPS guests:1
                                               PROCESSORS ${IOTAP_TEST_GUEST_CPUS} TIMEOUT 900
                                               FIXTURES_REQUIRED vm_guest
                                               ENVIRONMENT IOTAP_GUEST=${IOTAP_TEST_FIRST_GUEST})
endforeach()
