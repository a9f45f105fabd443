# Every dependency is a Debian package; setup.sh installs them. Missing ones fail here,
# at configure time, with the package to install.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
find_package(OpenSSL 3 REQUIRED)
find_package(GTest REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(Threads REQUIRED)

find_program(DTRACE_EXECUTABLE dtrace REQUIRED DOC "systemtap-sdt-dev's dtrace, for USDT probe headers")
# stap and the guest kernel (cmake/GuestKernel.cmake) are optional here: without them the
# launcher, the engine and the unit tiers build, and the stap and vm tiers fail, saying why.
find_program(STAP_EXECUTABLE stap DOC "SystemTap translator (package systemtap)")
find_program(QEMU_EXECUTABLE qemu-system-x86_64 DOC "qemu-system-x86, for --target vm")
