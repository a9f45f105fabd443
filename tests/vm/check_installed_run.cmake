# cmake -DMODE=prefix|deb -DBUILD_DIR=... -DSOURCE_DIR=... -DGUEST_KERNEL=... -P this
# An installed iotap, run for real, with the source and build trees out of its sight:
#   prefix: `cmake --install BUILD_DIR --prefix P`, then P/bin/iotap;
#   deb:    the .deb CPack makes (cmake/Package.cmake), installed with apt-get (its dependencies
#           from the Debian archive when missing), then /usr/bin/iotap; removed (purged) after.
# The installed iotap runs `iotap demo --json` in a guest of its own under bwrap, which mounts an
# empty directory over the source tree and the build tree: whatever it needs (its example script,
# tapsets, guest init, workloads, stapio_drain; SystemTap's runtime it adapts itself) must come from what was
# installed. Its caches go to a fresh $XDG_CACHE_HOME; stap's own cache is shared (its runtime
# copy and kernel trees live beside it, launcher/stap/shared_runtime.h), so the compile is warm.
cmake_policy(VERSION 3.25)
foreach(var MODE BUILD_DIR SOURCE_DIR GUEST_KERNEL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_installed_run.cmake: ${var} is not set")
  endif()
endforeach()
set(tmp "$ENV{TMPDIR}")
if(NOT tmp)
  set(tmp /tmp)
endif()
# Outside both trees (bwrap hides them), one per mode.
set(work "${tmp}/iotap-installed-${MODE}")
file(REMOVE_RECURSE "${work}")
file(MAKE_DIRECTORY "${work}/cache")

function(run_or_fail what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${err}\n${out}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "prefix")
  set(prefix "${work}/prefix")
  run_or_fail("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
elseif(MODE STREQUAL "deb")
  set(prefix /usr)
  execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT uid STREQUAL "0")
    message(FATAL_ERROR "this test installs the .deb with apt-get and purges it after: run the vm "
                        "tier as root (./test.sh does, as ./setup.sh's root)")
  endif()
  # A package this test built (its maintainer is cmake/Package.cmake's contact), left by an
  # interrupted run, goes first; any other iotap package is the user's, and stays.
  execute_process(COMMAND dpkg-query -W "-f=\${Status}|\${Maintainer}" iotap
                  OUTPUT_VARIABLE installed ERROR_QUIET)
  if(installed MATCHES "install ok installed")
    if(NOT installed MATCHES "iotap@localhost")
      message(FATAL_ERROR "an iotap package that this test did not build is installed "
                          "(${installed}); the test would replace it: remove it first")
    endif()
    run_or_fail("removing the iotap package an earlier run left" apt-get purge -y iotap)
  endif()
  run_or_fail("cpack" cpack -G DEB -B "${work}/package" --config "${BUILD_DIR}/CPackConfig.cmake")
  file(GLOB debs "${work}/package/iotap_*.deb")
  list(LENGTH debs deb_count)
  if(NOT deb_count EQUAL 1)
    message(FATAL_ERROR "cpack should make one iotap_*.deb in ${work}/package, made: '${debs}'")
  endif()
  run_or_fail("dpkg-deb -f" dpkg-deb -f "${debs}" Depends)
  foreach(dependency systemtap qemu-system-x86 mdadm dmsetup busybox-static
                     "linux-image-${GUEST_KERNEL}" "linux-headers-${GUEST_KERNEL}"
                     libboost-program-options libelf1)
    if(NOT run_output MATCHES "(^|, )${dependency}")
      message(FATAL_ERROR "the package should depend on ${dependency}; Depends: ${run_output}")
    endif()
  endforeach()
  run_or_fail("apt-get install ./iotap_*.deb" "${CMAKE_COMMAND}" -E env DEBIAN_FRONTEND=noninteractive
              apt-get install -y --no-install-recommends "${debs}")
else()
  message(FATAL_ERROR "MODE is prefix or deb, not '${MODE}'")
endif()

# What else the install holds: documents, man pages, completion.
foreach(file bin/iotap share/iotap/tapsets/blockio.stp
             share/doc/iotap/README.md share/doc/iotap/docs/getting-started.md
             share/man/man1/iotap.1 share/man/man1/iotap-doctor.1
             share/bash-completion/completions/iotap)
  if(NOT EXISTS "${prefix}/${file}")
    set(missing_file "${prefix}/${file}")
  endif()
endforeach()

# The run, with both trees hidden (the build tree may lie outside the source tree, or inside it).
set(hide --tmpfs "${SOURCE_DIR}")
string(FIND "${BUILD_DIR}/" "${SOURCE_DIR}/" inside)
if(NOT inside EQUAL 0)
  list(APPEND hide --tmpfs "${BUILD_DIR}")
endif()
if(DEFINED ENV{SYSTEMTAP_DIR} AND NOT "$ENV{SYSTEMTAP_DIR}" STREQUAL "")
  set(shared_runtimes "$ENV{SYSTEMTAP_DIR}/iotap-runtime")
else()
  set(shared_runtimes "$ENV{HOME}/.systemtap/iotap-runtime")
endif()
string(TIMESTAMP started "%s" UTC)
execute_process(
  COMMAND bwrap --dev-bind / / ${hide} --chdir "${work}" --
          env -u IOTAP_GUEST "XDG_CACHE_HOME=${work}/cache" "${prefix}/bin/iotap" demo --json
  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)

if(MODE STREQUAL "deb")
  execute_process(COMMAND apt-get purge -y iotap RESULT_VARIABLE purge_status
                  OUTPUT_QUIET ERROR_VARIABLE purge_errors)
endif()
file(REMOVE_RECURSE "${work}")
if(MODE STREQUAL "deb" AND NOT purge_status EQUAL 0)
  message(FATAL_ERROR "apt-get purge iotap failed (${purge_status}):\n${purge_errors}")
endif()
if(missing_file)
  message(FATAL_ERROR "the install has no ${missing_file}")
endif()
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the installed iotap's demo failed (${status}):\n${errors}\n${output}")
endif()
string(JSON spec ERROR_VARIABLE json_error GET "${output}" verdict slow_members 0 spec)
if(json_error OR NOT spec STREQUAL "delay(ram,50ms)")
  message(FATAL_ERROR "the installed iotap's demo should name delay(ram,50ms), named '${spec}' "
                      "${json_error}:\n${output}\n${errors}")
endif()
message(STATUS "the installed iotap (${MODE}) named ${spec} the slow member, with "
               "${SOURCE_DIR} and ${BUILD_DIR} out of its sight")

# The runtime stap compiled with: the shared copy of SystemTap's runtime adapted to the guest
# kernel (launcher/stap/runtime_adaptation.h), made by the installed iotap. stap's hash logs name
# the runtime each cache entry was made with; every one written since the run started names a
# shared copy, and one such copy holds the system's runtime's files plus the record of the changes,
# which names the ones every kernel gets.
get_filename_component(stap_dir "${shared_runtimes}" DIRECTORY)
file(GLOB_RECURSE logs "${stap_dir}/cache/*_hash.log")
set(new_logs 0)
foreach(log IN LISTS logs)
  file(TIMESTAMP "${log}" written "%s" UTC)
  if(written LESS started)
    continue()
  endif()
  file(STRINGS "${log}" runtime_lines REGEX "^Runtime Path: ")
  foreach(line IN LISTS runtime_lines)
    string(REPLACE "Runtime Path: " "" runtime "${line}")
    if(NOT runtime MATCHES "^${shared_runtimes}/[0-9a-f]+$")
      message(FATAL_ERROR "stap compiled with the runtime at ${runtime} (${log}), not the shared "
                          "copy under ${shared_runtimes}")
    endif()
    math(EXPR new_logs "${new_logs} + 1")
  endforeach()
endforeach()
file(GLOB runtimes LIST_DIRECTORIES true "${shared_runtimes}/*")
set(copy "")
foreach(runtime IN LISTS runtimes)
  if(IS_DIRECTORY "${runtime}" AND EXISTS "${runtime}/.iotap-runtime-id")
    file(GLOB_RECURSE shared_files RELATIVE "${runtime}" "${runtime}/*")
    file(GLOB_RECURSE system_files RELATIVE /usr/share/systemtap/runtime
         /usr/share/systemtap/runtime/*)
    list(APPEND system_files iotap-compat.txt)
    list(REMOVE_ITEM shared_files ".iotap-runtime-id")
    list(SORT shared_files)
    list(SORT system_files)
    file(STRINGS "${runtime}/iotap-compat.txt" changes)
    if(shared_files STREQUAL system_files AND "relay_subbuf_tail" IN_LIST changes
       AND "module_probes_by_name" IN_LIST changes AND "ctl_context_irqs_off" IN_LIST changes)
      set(copy "${runtime}")
    endif()
  endif()
endforeach()
if(NOT copy)
  message(FATAL_ERROR "no copy of SystemTap's runtime adapted to the guest kernel under "
                      "${shared_runtimes}")
endif()
message(STATUS "stap's runtime: the shared copy ${copy} (${new_logs} of stap's cache entries made "
               "since the run started, all with it)")
