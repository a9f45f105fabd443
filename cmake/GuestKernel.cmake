# The kernel that `--target vm` boots, and a SystemTap runtime that compiles against it.
#
# The guest kernel is a Debian package installed on the host (setup.sh does it): its image
# from /boot, its modules from /lib/modules, its headers for stap -r. Pick the newest cloud
# kernel of the default series (IOTAP_GUEST_KERNEL_SERIES, 6.1: cmake/ChooseGuestKernel.cmake)
# that has all three, unless IOTAP_GUEST_KERNEL names
# one: a newer series installed beside it (Debian 12 ships 6.12 too) never changes the
# default on its own.
#
# Both the guest kernel and stap are optional: without either, IOTAP_GUEST_MISSING says what to
# install, `--target vm` refuses to run with that message, and the stap and vm tiers register
# one failing test each (tests/CMakeLists.txt) instead of passing with nothing run.
# IOTAP_GUEST_KERNEL=none builds without a guest even where one is installed.
set(IOTAP_GUEST_KERNEL "" CACHE STRING
    "Kernel release booted by --target vm (default: the newest installed IOTAP_GUEST_KERNEL_SERIES cloud kernel with headers; none: no guest)")
include(${CMAKE_CURRENT_LIST_DIR}/ChooseGuestKernel.cmake)
set(IOTAP_GUEST_KERNEL_SERIES ${IOTAP_DEFAULT_GUEST_KERNEL_SERIES} CACHE STRING
    "The kernel series whose newest installed cloud kernel --target vm boots by default")
set(IOTAP_GUEST_MISSING "")
if(IOTAP_GUEST_KERNEL STREQUAL "none")
  set(IOTAP_GUEST_KERNEL "")
  set(IOTAP_GUEST_MISSING "configured with IOTAP_GUEST_KERNEL=none")
elseif(NOT IOTAP_GUEST_KERNEL)
  iotap_choose_guest_kernel(IOTAP_GUEST_KERNEL "${IOTAP_GUEST_KERNEL_SERIES}" /boot /lib/modules)
endif()
if(NOT IOTAP_GUEST_KERNEL AND NOT IOTAP_GUEST_MISSING)
  set(IOTAP_GUEST_MISSING "no ${IOTAP_GUEST_KERNEL_SERIES} guest kernel: install linux-image-cloud-amd64 and "
                          "linux-headers-cloud-amd64 (./setup.sh does), or set -DIOTAP_GUEST_KERNEL=<release>")
endif()

find_path(IOTAP_SYSTEM_STAP_RUNTIME stp_task_work.c PATHS /usr/share/systemtap/runtime NO_DEFAULT_PATH
          DOC "SystemTap's runtime sources (package systemtap)")
if(NOT IOTAP_GUEST_MISSING AND (NOT STAP_EXECUTABLE OR NOT IOTAP_SYSTEM_STAP_RUNTIME))
  set(IOTAP_GUEST_MISSING "SystemTap not found (stap, /usr/share/systemtap/runtime): install systemtap "
                          "(./setup.sh does)")
  set(IOTAP_GUEST_KERNEL "")
endif()
if(IOTAP_GUEST_MISSING)
  string(JOIN "" IOTAP_GUEST_MISSING ${IOTAP_GUEST_MISSING})
  message(WARNING "building without the guest: ${IOTAP_GUEST_MISSING}. The launcher, the engine and "
                  "the unit and golden tiers build; --target vm refuses to run, and the stap and vm "
                  "tiers fail.")
  return()
endif()
message(STATUS "iotap guest kernel: ${IOTAP_GUEST_KERNEL}")

# The second kernel the stap and vm tiers run on (--guest-kernel): the newest installed cloud
# kernel of IOTAP_SECOND_GUEST_KERNEL_SERIES. Missing, those tiers register a failing test that
# names the packages, as for the first.
set(IOTAP_SECOND_GUEST_KERNEL "" CACHE STRING
    "Kernel release the stap and vm tiers also run on (default: the newest installed ${IOTAP_SECOND_GUEST_KERNEL_SERIES} cloud kernel with headers)")
if(NOT IOTAP_SECOND_GUEST_KERNEL)
  iotap_choose_guest_kernel(IOTAP_SECOND_GUEST_KERNEL "${IOTAP_SECOND_GUEST_KERNEL_SERIES}" /boot
                            /lib/modules)
  if(IOTAP_SECOND_GUEST_KERNEL)
    message(STATUS "iotap second guest kernel (tests): ${IOTAP_SECOND_GUEST_KERNEL}")
  else()
    message(WARNING "no ${IOTAP_SECOND_GUEST_KERNEL_SERIES} kernel installed: the stap and vm tiers' "
                    "${IOTAP_SECOND_GUEST_KERNEL_SERIES} cases fail (./setup.sh installs it)")
  endif()
endif()

# The runtime stap compiles into every module is SystemTap's own, adapted per kernel by the
# launcher when a run first needs it (launcher/stap/runtime_adaptation.h).
