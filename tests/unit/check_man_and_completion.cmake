# cmake -DIOTAP=... -DMAN_DIR=... -DCOMPLETION=... -P check_man_and_completion.cmake
# The man pages say what --help says: a page per verb iotap lists, holding every line of the
# verb's --help, and man renders it. The bash completion offers what --help lists: verbs,
# options, --stack's kinds.

function(fail message)
  message(FATAL_ERROR "${message}")
endfunction()

execute_process(COMMAND "${IOTAP}" --help OUTPUT_VARIABLE help)
string(REGEX MATCH "\nverbs:\n([^\n]+\n)+" verb_block "${help}")
string(REGEX MATCHALL "\n  [a-z]+ " verb_lines "${verb_block}")
set(verbs "")
foreach(line IN LISTS verb_lines)
  string(STRIP "${line}" verb)
  list(APPEND verbs "${verb}")
endforeach()
list(LENGTH verbs count)
if(count LESS 10)
  fail("iotap --help lists ${count} verbs: ${verbs}")
endif()

# The page's text with roff's escapes undone.
function(page_text file out)
  if(NOT EXISTS "${file}")
    fail("no man page ${file}")
  endif()
  file(READ "${file}" text)
  string(REPLACE "\\-" "-" text "${text}")
  string(REPLACE "\\e" "\\" text "${text}")
  string(REPLACE "\\&" "" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

foreach(verb IN LISTS verbs ITEMS "")
  if(verb STREQUAL "")
    set(page "${MAN_DIR}/iotap.1")
    execute_process(COMMAND "${IOTAP}" --help OUTPUT_VARIABLE verb_help)
  else()
    set(page "${MAN_DIR}/iotap-${verb}.1")
    execute_process(COMMAND "${IOTAP}" ${verb} --help OUTPUT_VARIABLE verb_help)
  endif()
  page_text("${page}" text)
  # A CMake list takes [ ] as grouping: both texts spell them out first. (A ; in a line cuts
  # it in two for the list below: each piece must then be in the page.)
  foreach(text_var IN ITEMS text verb_help)
    string(REPLACE "[" "<open>" ${text_var} "${${text_var}}")
    string(REPLACE "]" "<close>" ${text_var} "${${text_var}}")
  endforeach()
  string(REPLACE "\n" ";" help_lines "${verb_help}")
  list(REMOVE_AT help_lines 0)  # usage: ..., the SYNOPSIS without its "usage: "
  foreach(line IN LISTS help_lines)
    string(STRIP "${line}" stripped)
    if(stripped STREQUAL "")
      continue()
    endif()
    string(FIND "${text}" "${stripped}" at)
    if(at EQUAL -1)
      fail("${page} lacks a line of iotap ${verb} --help: '${stripped}'")
    endif()
  endforeach()
endforeach()

# man renders a page: the NAME line and an option as a reader sees them.
execute_process(COMMAND "${CMAKE_COMMAND}" -E env MANPAGER=cat MANWIDTH=100
                        man -l "${MAN_DIR}/iotap-attribute.1"
                OUTPUT_VARIABLE rendered ERROR_VARIABLE man_errors RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR man_errors)
  fail("man -l iotap-attribute.1 failed (${status}): ${man_errors}")
endif()
foreach(expected IN ITEMS "iotap-attribute - where each read's time goes" "--html FILE")
  string(FIND "${rendered}" "${expected}" at)
  if(at EQUAL -1)
    fail("man shows no '${expected}' in iotap-attribute(1):\n${rendered}")
  endif()
endforeach()

# The completion, in bash, as a user's Tab would call it.
get_filename_component(iotap_dir "${IOTAP}" DIRECTORY)
function(completes words expected)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env "PATH=${iotap_dir}:$ENV{PATH}"
            bash -c "source \"$0\"; COMP_WORDS=($1); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _iotap; echo \"\${COMPREPLY[*]}\""
            "${COMPLETION}" "${words}"
    OUTPUT_VARIABLE got OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT got STREQUAL expected)
    fail("completing '${words}' gave '${got}', not '${expected}'")
  endif()
endfunction()
completes("iotap at" "attribute")
completes("iotap re" "record replay report")
completes("iotap attribute --ht" "--html")
completes("iotap diagnose --stack ra" "raid0( raid1( raid10( raid5( ram")
completes("iotap run --target v" "vm")
completes("iotap guest st" "start stop status")
message(STATUS "${count} verbs: every man page holds its --help; the completion offers them")
