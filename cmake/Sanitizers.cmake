# IOTAP_SANITIZE: every target built with AddressSanitizer and UndefinedBehaviorSanitizer, any
# finding fatal (the "sanitize" preset; .ci/run runs the unit and golden tiers this way).
# IOTAP_FUZZ: the libFuzzer targets of tests/fuzz too (clang only). Everything is compiled with
# libFuzzer's coverage instrumentation then, so the fuzzers steer by the coverage of the
# libraries they call, not just of their harnesses; it implies IOTAP_SANITIZE, whose runtime
# gives the programs that are not fuzzers the hooks that instrumentation calls.
option(IOTAP_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(IOTAP_FUZZ "Build the libFuzzer targets and their 30 s smoke tests (clang; implies IOTAP_SANITIZE)" OFF)

set(IOTAP_FUZZ_ENABLED OFF)
if(IOTAP_FUZZ)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND CMAKE_C_COMPILER_ID STREQUAL "Clang")
    set(IOTAP_FUZZ_ENABLED ON)
    add_compile_options(-fsanitize=fuzzer-no-link)
  else()
    message(WARNING "IOTAP_FUZZ needs clang (CC=clang CXX=clang++, or the \"sanitize\" preset); "
                    "building only the corpus replay tests")
  endif()
endif()

if(IOTAP_SANITIZE OR IOTAP_FUZZ_ENABLED)
  set(iotap_sanitizers -fsanitize=address,undefined -fno-sanitize-recover=all)
  add_compile_options(${iotap_sanitizers} -fno-omit-frame-pointer)
  add_link_options(${iotap_sanitizers})
endif()

# How long each fuzz target's smoke test fuzzes; the 10-minute runs of docs/fuzzing.md are by hand.
set(IOTAP_FUZZ_SMOKE_SECONDS 30 CACHE STRING "Seconds of fuzzing in each <target>_smoke test")

# iotap_fuzz_target(NAME SOURCES harness... LIBS lib... CORPUS dir): a harness
# defining LLVMFuzzerTestOneInput, and its seeds. It makes
#  - NAME_replay, in every build (label unit): the seeds and deterministic mutations of them
#    through the harness without libFuzzer (tests/fuzz/replay_main.cpp), so whatever the corpus
#    holds, findings included, is replayed by every compiler;
#  - with IOTAP_FUZZ on clang: NAME, the libFuzzer binary, and NAME_smoke (labels unit and fuzz):
#    IOTAP_FUZZ_SMOKE_SECONDS of fuzzing from the seeds. New inputs go to build/fuzz/NAME/corpus,
#    crashes to build/fuzz/NAME/crashes; the source tree's seeds are only read.
function(iotap_fuzz_target name)
  cmake_parse_arguments(arg "" "CORPUS" "SOURCES;LIBS" ${ARGN})
  add_executable(${name}_replay ${PROJECT_SOURCE_DIR}/tests/fuzz/replay_main.cpp ${arg_SOURCES})
  target_link_libraries(${name}_replay PRIVATE ${arg_LIBS})
  add_test(NAME ${name}_replay COMMAND ${name}_replay ${arg_CORPUS})
  set_tests_properties(${name}_replay PROPERTIES LABELS unit TIMEOUT 120)
  if(NOT IOTAP_FUZZ_ENABLED)
    return()
  endif()
  add_executable(${name} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE ${arg_LIBS})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  set(work ${PROJECT_BINARY_DIR}/fuzz/${name})
  file(MAKE_DIRECTORY ${work}/corpus ${work}/crashes)
  add_test(NAME ${name}_smoke
           COMMAND ${name} -max_total_time=${IOTAP_FUZZ_SMOKE_SECONDS} -timeout=25
                   -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=${work}/crashes/
                   ${work}/corpus ${arg_CORPUS})
  math(EXPR limit "${IOTAP_FUZZ_SMOKE_SECONDS} * 3 + 60")
  set_tests_properties(${name}_smoke PROPERTIES LABELS "unit;fuzz" TIMEOUT ${limit})
endfunction()

# iotap_not_sanitized(target...): programs that tests read as files, not run as code under test
# (tests/unit/usdt's probe programs), and libraries preloaded into programs that are not
# sanitized (stapio_drain.so: the ASan runtime must come first in a process, and does not there). Built plain, they stay small (no static ASan runtime: the
# readers' exhaustive damage tests copy the file thousands of times) and their probe operands
# stay the ones the tests expect.
function(iotap_not_sanitized)
  if(IOTAP_SANITIZE OR IOTAP_FUZZ_ENABLED)
    foreach(target IN LISTS ARGN)
      target_compile_options(${target} PRIVATE -fno-sanitize=all)
      target_link_options(${target} PRIVATE -fno-sanitize=all)
    endforeach()
  endif()
endfunction()
