# Unit tests of the launcher's libraries: no root, no kernel, no guest.
iotap_unit_test(stack_spec_test
  SOURCES launcher/stack_spec_test.cpp launcher/stack_plan_test.cpp
  LIBS iotap_target)
iotap_unit_test(initramfs_test
  SOURCES launcher/cpio_writer_test.cpp launcher/elf_dependencies_test.cpp launcher/kernel_test.cpp
  LIBS iotap_target)
target_compile_definitions(initramfs_test PRIVATE
  BLOCK_HASHER_PATH="${CMAKE_BINARY_DIR}/workloads/block_hasher/block_hasher")
add_dependencies(initramfs_test block_hasher)
iotap_unit_test(stap_test
  SOURCES launcher/script_test.cpp launcher/stap_stderr_test.cpp launcher/runtime_compat_test.cpp
  LIBS iotap_stap iotap_target)
target_compile_definitions(stap_test PRIVATE
  STAP_RUNTIME_DIR="${IOTAP_STAP_RUNTIME}"
  TASK_WORK_HEADER="/lib/modules/${IOTAP_GUEST_KERNEL}/source/include/linux/task_work.h")
add_dependencies(stap_test stap_runtime)
iotap_unit_test(verbs_test
  SOURCES launcher/device_table_test.cpp launcher/target_options_test.cpp
  LIBS iotap_verbs)
