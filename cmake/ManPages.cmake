# Man pages from iotap's own --help (cmake -P, at build time): iotap(1) from `iotap --help`, and
# iotap-VERB(1) from `iotap VERB --help` for every verb that lists. The text is --help's, word
# for word, so a page cannot say what the program does not; roff only frames it (a NAME line for
# apropos, the usage as SYNOPSIS, the rest as it prints, in a no-fill block).
#   cmake -DIOTAP=path/to/iotap -DOUT=dir -DVERSION=x.y.z -P ManPages.cmake

# Text made safe for a roff no-fill block: backslashes as \e, hyphens as \- (so that an option
# copied from the page is typed as printed), and a line that starts with . or ' escaped.
function(roff_text text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# One page: NAME is "title \- summary"; the help's first line (usage: ...) is the SYNOPSIS.
function(write_page file title summary help)
  string(TOUPPER "${title}" upper)
  string(FIND "${help}" "\n" first_newline)
  string(SUBSTRING "${help}" 0 ${first_newline} usage)
  string(SUBSTRING "${help}" ${first_newline} -1 body)
  string(REGEX REPLACE "^usage: " "" usage "${usage}")
  string(STRIP "${body}" body)
  roff_text("${usage}" usage)
  roff_text("${body}" body)
  roff_text("${summary}" summary)
  roff_text("${title}" name)
  file(WRITE "${file}"
       ".TH ${upper} 1 \"\" \"iotap ${VERSION}\" \"iotap\"\n"
       ".SH NAME\n${name} \\- ${summary}\n"
       ".SH SYNOPSIS\n.nf\n${usage}\n.fi\n"
       ".SH DESCRIPTION\n.nf\n${body}\n.fi\n"
       ".SH SEE ALSO\n${SEE_ALSO}\n")
endfunction()

execute_process(COMMAND "${IOTAP}" --help OUTPUT_VARIABLE help RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "iotap --help failed (${status})")
endif()
file(MAKE_DIRECTORY "${OUT}")
file(GLOB old_pages "${OUT}/*.1")
if(old_pages)
  file(REMOVE ${old_pages})  # a verb that went away takes its page with it
endif()

# The verbs: the lines under "verbs:", "  NAME  summary".
string(REGEX MATCH "\nverbs:\n([^\n]+\n)+" verb_block "${help}")
string(REGEX MATCHALL "\n  [a-z]+ +[^\n]+" verb_lines "${verb_block}")
set(see_also "")
set(verbs "")
foreach(line IN LISTS verb_lines)
  string(REGEX MATCH "^\n  ([a-z]+) +(.*)$" _ "${line}")
  list(APPEND verbs "${CMAKE_MATCH_1}")
  set(summary_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
  string(APPEND see_also ".BR iotap\\-${CMAKE_MATCH_1} (1),\n")
endforeach()
if(NOT verbs)
  message(FATAL_ERROR "no verbs in iotap --help")
endif()

set(SEE_ALSO "${see_also}.BR stap (1),\n.BR staprun (8)")
write_page("${OUT}/iotap.1" iotap "where a read's time goes, from the program down to the member disk"
           "${help}")
set(SEE_ALSO ".BR iotap (1)")
foreach(verb IN LISTS verbs)
  execute_process(COMMAND "${IOTAP}" ${verb} --help OUTPUT_VARIABLE verb_help
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "iotap ${verb} --help failed (${status})")
  endif()
  write_page("${OUT}/iotap-${verb}.1" "iotap-${verb}" "${summary_${verb}}" "${verb_help}")
endforeach()
