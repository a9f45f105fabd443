# ExpectExit.cmake with TMPDIR pointed at an empty SCRATCH directory, which must still be empty
# afterwards: a refused binary leaves no temp file and no -o file behind.
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
set(ENV{TMPDIR} "${SCRATCH}")
include(${CMAKE_CURRENT_LIST_DIR}/../../../cmake/ExpectExit.cmake)
file(GLOB left "${SCRATCH}/*")
if(left)
  message(FATAL_ERROR "left behind: ${left}")
endif()
