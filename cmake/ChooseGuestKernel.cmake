# iotap_choose_guest_kernel(OUT SERIES BOOT_DIR MODULES_DIR): the newest cloud kernel of SERIES
# (e.g. 6.1) with an image in BOOT_DIR (vmlinuz-RELEASE) and, in MODULES_DIR/RELEASE, its modules
# (modules.dep) and headers (build/Makefile); "" when there is none. A release of another series
# is never chosen, however new: 6.12 beside 6.1 does not change the default (issue 30).
# tests/cmake/choose_guest_kernel_test.cmake holds it to that on a made-up /boot.
#
# setup.sh asks the same question (which kernel's -dbg package to install) with
#   cmake [-DSERIES=6.1] -P cmake/ChooseGuestKernel.cmake
# which prints the release, or nothing.

# Debian 12's own series, the one SystemTap 4.8 was made for; and the newer series Debian 12
# ships (its long-term kernel), to which iotap adapts 4.8's runtime: the stap and vm tiers run on
# both (docs/kernels.md).
set(IOTAP_DEFAULT_GUEST_KERNEL_SERIES 6.1)
set(IOTAP_SECOND_GUEST_KERNEL_SERIES 6.12)
function(iotap_choose_guest_kernel out series boot_dir modules_dir)
  file(GLOB images "${boot_dir}/vmlinuz-*-cloud-amd64")
  list(SORT images COMPARE NATURAL ORDER DESCENDING)
  string(REPLACE "." "\\." series_pattern "${series}")
  foreach(image IN LISTS images)
    get_filename_component(name "${image}" NAME)
    string(REGEX REPLACE "^vmlinuz-" "" release "${name}")
    if(NOT release MATCHES "^${series_pattern}[.+-]")
      continue()  # 6.12.117+deb12-cloud-amd64 is not of the series 6.1
    endif()
    if(EXISTS "${modules_dir}/${release}/build/Makefile" AND EXISTS "${modules_dir}/${release}/modules.dep")
      set(${out} "${release}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT SERIES)
    set(SERIES ${IOTAP_DEFAULT_GUEST_KERNEL_SERIES})
  endif()
  iotap_choose_guest_kernel(release "${SERIES}" /boot /lib/modules)
  if(release)
    execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${release}")
  endif()
endif()
