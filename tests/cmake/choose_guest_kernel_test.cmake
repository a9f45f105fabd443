# cmake -DWORK=DIR -P choose_guest_kernel_test.cmake: the guest kernel chosen by default
# (cmake/ChooseGuestKernel.cmake) on a made-up /boot and /lib/modules under DIR. Debian 12 ships
# 6.12 beside 6.1; installing it must never change which kernel the guest boots by default.
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/ChooseGuestKernel.cmake)
file(REMOVE_RECURSE "${WORK}")
# A kernel: its image, and unless said otherwise its modules and headers.
function(install_kernel release)
  file(WRITE "${WORK}/boot/vmlinuz-${release}" "")
  set(options ${ARGN})
  if(NOT "headers-missing" IN_LIST options)
    file(WRITE "${WORK}/modules/${release}/build/Makefile" "")
  endif()
  file(WRITE "${WORK}/modules/${release}/modules.dep" "")
endfunction()
function(expect series want)
  iotap_choose_guest_kernel(got "${series}" "${WORK}/boot" "${WORK}/modules")
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "series ${series}: chose '${got}', expected '${want}'")
  endif()
endfunction()

install_kernel(6.1.0-56-cloud-amd64)
install_kernel(6.12.117+deb12-cloud-amd64)
install_kernel(6.1.0-9-cloud-amd64)
expect(6.1 6.1.0-56-cloud-amd64)  # the newest 6.1 (56 after 9: natural order), not 6.12
expect(6.12 6.12.117+deb12-cloud-amd64)
install_kernel(6.12.200+deb12-cloud-amd64 headers-missing)
expect(6.12 6.12.117+deb12-cloud-amd64)  # a newer image without headers cannot be built for
expect(6.6 "")
install_kernel(6.1.0-60-amd64)  # not a cloud kernel
expect(6.1 6.1.0-56-cloud-amd64)
file(REMOVE_RECURSE "${WORK}")
message(STATUS "choose_guest_kernel: 5 choices as expected")
