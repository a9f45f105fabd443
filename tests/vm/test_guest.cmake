# The guests the vm tier shares (iotap guest, guest/shared_guest.h): GUESTS of them, at DIR/g0,
# DIR/g1, ..., booted by the fixture test vm_guest_start and stopped by vm_guest_stop. Each test
# is handed one (tests/vm/CMakeLists.txt) and names it to iotap with IOTAP_GUEST. A test that
# needs a guest of its own (one it stops before the run starts, which kills the guest) clears
# IOTAP_GUEST; a run the guest cannot take (other memory, virtio disks) boots its own.
# GUEST_KERNEL, if given, is the kernel they boot (--guest-kernel); IDLE_MINUTES how long each
# waits unused before it powers itself off (iotap's default if not given).
# cmake -DIOTAP=... -DDIR=... -DGUESTS=N -DACTION=start|stop [-DGUEST_KERNEL=R] [-DIDLE_MINUTES=M]
#       -P test_guest.cmake
file(MAKE_DIRECTORY "${DIR}")
math(EXPR last "${GUESTS} - 1")
foreach(guest RANGE ${last})
  set(guest_dir "${DIR}/g${guest}")
  if(ACTION STREQUAL "start")
    # A guest left by an interrupted ctest run goes first.
    execute_process(COMMAND "${IOTAP}" guest stop --dir "${guest_dir}" OUTPUT_QUIET ERROR_QUIET)
  endif()
  set(options "")
  if(ACTION STREQUAL "start" AND GUEST_KERNEL)
    list(APPEND options --guest-kernel "${GUEST_KERNEL}")
  endif()
  if(ACTION STREQUAL "start" AND IDLE_MINUTES)
    list(APPEND options --idle-minutes "${IDLE_MINUTES}")
  endif()
  execute_process(COMMAND "${IOTAP}" guest ${ACTION} --dir "${guest_dir}" ${options}
                  RESULT_VARIABLE status
                  ERROR_VARIABLE said)
  message("${said}")
  # A guest a run killed (one that did not end when stopped: guest_session.cpp) is gone
  # already: that run's test failed and said why; the tier's cleanup has nothing left to do.
  if(ACTION STREQUAL "stop" AND said MATCHES "no guest runs at")
    message(WARNING "the guest at ${guest_dir} had gone before the tier's end")
  elseif(NOT status EQUAL 0)
    message(FATAL_ERROR "iotap guest ${ACTION} --dir ${guest_dir} failed (exit ${status})")
  endif()
endforeach()
