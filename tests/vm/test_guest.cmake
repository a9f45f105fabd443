# The guest the vm tier shares (iotap guest, target/shared_guest.h): booted once by the fixture
# test vm_guest_start, stopped by vm_guest_stop, and named to the tests by IOTAP_GUEST. A test
# that needs a guest of its own (one it stops before the run starts, which kills the guest)
# clears IOTAP_GUEST; a run the guest cannot take (other memory, virtio disks) boots its own.
# cmake -DIOTAP=... -DDIR=... -DACTION=start|stop -P test_guest.cmake
if(ACTION STREQUAL "start")
  # A guest left by an interrupted ctest run goes first.
  execute_process(COMMAND "${IOTAP}" guest stop --dir "${DIR}" OUTPUT_QUIET ERROR_QUIET)
endif()
execute_process(COMMAND "${IOTAP}" guest ${ACTION} --dir "${DIR}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "iotap guest ${ACTION} --dir ${DIR} failed (exit ${status})")
endif()
