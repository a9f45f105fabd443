# iotap_usdt_note_tests(TARGET PROVIDER "probe|sizes" ...): one unit test per USDT probe of a
# workload's binary, each requiring its provider, name, a semaphore (from dtrace -G) and the
# argument sizes of its signature in probes.d (8: 64-bit unsigned or pointer, -4: int, -8:
# int64_t). Tapsets read arguments by position, so a reordered or retyped argument fails here.
#
# GNU readelf (binutils): it decodes NT_STAPSDT notes; llvm-readelf, CMAKE_READELF in a clang
# build, does not.
find_program(IOTAP_READELF NAMES readelf REQUIRED)

function(iotap_usdt_note_tests target provider)
  foreach(probe IN LISTS ARGN)
    string(REPLACE "|" ";" parts "${probe}")
    list(GET parts 0 name)
    list(GET parts 1 sizes)
    string(REPLACE " " ";" sizes "${sizes}")
    set(args "")
    foreach(size IN LISTS sizes)
      string(APPEND args " ${size}@[^ \n]+")
    endforeach()
    # ExpectExit: readelf must succeed too (PASS_REGULAR_EXPRESSION alone ignores its status).
    add_test(NAME ${target}_usdt_${name}
             COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${IOTAP_READELF};-n;$<TARGET_FILE:${target}>"
                     -DEXPECT_EXIT=0
                     "-DEXPECT_REGEX=Provider: ${provider}\n[ ]*Name: ${name}\n[ ]*Location: [^\n]*Semaphore: 0x0*[1-9a-f][0-9a-f]*\n[ ]*Arguments:${args}\n"
                     -P "${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake")
    set_tests_properties(${target}_usdt_${name} PROPERTIES LABELS unit)
  endforeach()
endfunction()
