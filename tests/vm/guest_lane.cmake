# The cmake-script side of guest_lane.cpp: a vm test run as `cmake -P` takes the shared guest
# ctest allocated to it (CTEST_RESOURCE_GROUP_0_GUESTS="id:NAME,slots:1") as IOTAP_GUEST, then
# runs SCRIPT with the same -D variables.
# cmake -DGUESTS_DIR=... -DSCRIPT=... [-D...] -P guest_lane.cmake
if(DEFINED ENV{CTEST_RESOURCE_GROUP_0_GUESTS})
  if(NOT "$ENV{CTEST_RESOURCE_GROUP_0_GUESTS}" MATCHES "^id:([^,]+)")
    message(FATAL_ERROR "CTEST_RESOURCE_GROUP_0_GUESTS='$ENV{CTEST_RESOURCE_GROUP_0_GUESTS}' names no guest (expected id:NAME,...)")
  endif()
  set(ENV{IOTAP_GUEST} "${GUESTS_DIR}/${CMAKE_MATCH_1}")
endif()
include("${SCRIPT}")
