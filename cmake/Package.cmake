# `cmake --build build --target package` (or `cpack --config build/CPackConfig.cmake`): a .deb of
# the installed layout (cmake/Install.cmake) under /usr, build/iotap_VERSION_ARCH.deb. Its
# dependencies are the Debian packages a run needs: the shared libraries iotap links (found by
# dpkg-shlibdeps), SystemTap, and for --target vm qemu, the guest kernel this build was
# configured for (its modules boot in the guest, its headers compile the probes; the adapted
# stap runtime in the package is made for exactly that kernel) and the programs the guest's image
# is made of. `apt install ./iotap_*.deb` installs them too; `iotap doctor` then checks the rest.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME iotap)
set(CPACK_PACKAGE_VENDOR "iotap")
set(CPACK_PACKAGE_CONTACT "iotap developers <iotap@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "follows a program's reads and writes through md and device-mapper to the slow disk")
set(CPACK_PACKAGE_DESCRIPTION
    "iotap follows a program's requests, named by USDT probes or its system calls, down through "
    "the Linux block layer, md and device-mapper to the member disk that served them, and says "
    "where the time went. It builds SystemTap modules and runs them on this kernel or in a qemu "
    "guest it boots itself, with md/dm stacks it builds there.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(_iotap_depends "systemtap (>= 4.8)" systemtap-runtime qemu-system-x86 busybox-static mdadm
    dmsetup e2fsprogs coreutils)
if(IOTAP_GUEST_KERNEL)
  list(APPEND _iotap_depends "linux-image-${IOTAP_GUEST_KERNEL}" "linux-headers-${IOTAP_GUEST_KERNEL}")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "linux-image-${IOTAP_GUEST_KERNEL}-dbg")
endif()
list(JOIN _iotap_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bpftrace, fio")
include(CPack)
