# Unit tests of stack_spec/, runner/, guest/, remote/, stap/, session/ and util/ (no root, no
# kernel, no guest), then the command line end to end.
iotap_unit_test(stack_spec_test
  SOURCES stack_spec/stack_spec_test.cpp stack_spec/stack_plan_test.cpp
          runner/guest_stack_test.cpp
  LIBS iotap_stack_spec iotap_runner)
# stapio_drain.so (launcher/runner/stapio_drain/) preloaded into a stand-in stapio: what the
# readers left comes out in sequence order; stapio's children do not inherit the library.
add_executable(fake_stapio runner/stapio_drain/fake_stapio.c)
set_target_properties(fake_stapio PROPERTIES OUTPUT_NAME stapio RUNTIME_OUTPUT_DIRECTORY
                                             "${CMAKE_CURRENT_BINARY_DIR}/fake_stapio")
add_library(stapio_drain_user_preload MODULE runner/stapio_drain/user_preload.c)
iotap_not_sanitized(fake_stapio stapio_drain_user_preload)
iotap_unit_test(stapio_drain_test SOURCES runner/stapio_drain/stapio_drain_test.cpp
                LIBS iotap_util)
target_compile_definitions(stapio_drain_test PRIVATE
  FAKE_STAPIO="$<TARGET_FILE:fake_stapio>" STAPIO_DRAIN="$<TARGET_FILE:stapio_drain>"
  USER_PRELOAD="$<TARGET_FILE:stapio_drain_user_preload>")
add_dependencies(stapio_drain_test fake_stapio stapio_drain stapio_drain_user_preload)
# The targets' control lines (runner/control_protocol.h): every kind, and malformed ones.
iotap_unit_test(control_protocol_test
  SOURCES runner/control_protocol_test.cpp runner/postgres_stats_test.cpp LIBS iotap_runner)
iotap_unit_test(accelerator_test SOURCES guest/accelerator_test.cpp LIBS iotap_guest)
# Which kernel --guest-kernel names, and what each installed kernel has (guest/guest_kernels.h).
iotap_unit_test(guest_kernels_test SOURCES guest/guest_kernels_test.cpp LIBS iotap_guest)
# What a failed guest's console says went wrong (guest/guest_logs.h).
iotap_unit_test(guest_logs_test SOURCES guest/guest_logs_test.cpp LIBS iotap_guest)
target_compile_definitions(guest_logs_test PRIVATE
  UNIT_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data")
# --target ssh://: its addresses, the agent's facts, what a host lacks (remote/ssh_target.h).
iotap_unit_test(ssh_target_test SOURCES remote/ssh_target_test.cpp LIBS iotap_remote)
iotap_unit_test(initramfs_test
  SOURCES guest/cpio_writer_test.cpp guest/elf_dependencies_test.cpp guest/kernel_test.cpp
    runner/kernel_tree_test.cpp guest/postgres_guest_test.cpp guest/postgres_cluster_test.cpp
  LIBS iotap_guest iotap_runner)
target_compile_definitions(initramfs_test PRIVATE
  BLOCK_HASHER_PATH="${CMAKE_BINARY_DIR}/workloads/block_hasher/block_hasher"
  IO_REPLAYER_PATH="${CMAKE_BINARY_DIR}/workloads/io_replayer/io_replayer")
add_dependencies(initramfs_test block_hasher)
# The guest kernel's -dbg package files (runner/kernel_debuginfo.h).
iotap_unit_test(kernel_debuginfo_test SOURCES runner/kernel_debuginfo_test.cpp LIBS iotap_runner)
iotap_unit_test(stap_test
  SOURCES stap/script_test.cpp stap/stap_stderr_test.cpp stap/runtime_compat_test.cpp
    stap/script_markers_test.cpp stap/stap_messages_test.cpp stap/stap_options_test.cpp
    stap/probe_failure_test.cpp stap/module_cache_test.cpp stap/hit_report_test.cpp
    stap/shared_runtime_test.cpp stap/module_stamp_test.cpp stap/runtime_adaptation_test.cpp
    stap/runtime_compat_newer_test.cpp stap/build_failure_test.cpp stap/module_name_test.cpp
  LIBS iotap_stap iotap_runner)
# A module --save-module made elsewhere, stood in for by an object with a .modinfo.
add_library(fake_module OBJECT stap/fake_module.c)
target_compile_definitions(stap_test PRIVATE FAKE_MODULE="$<TARGET_OBJECTS:fake_module>"
  TEST_PROGRAM="$<TARGET_FILE:stap_test>")
add_dependencies(stap_test fake_module)
target_compile_definitions(stap_test PRIVATE
  SYSTEM_STAP_RUNTIME_DIR="${IOTAP_SYSTEM_STAP_RUNTIME}" GUEST_KERNEL="${IOTAP_GUEST_KERNEL}"
  SECOND_GUEST_KERNEL="${IOTAP_SECOND_GUEST_KERNEL}"
  UNIT_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data")
# -c's words: cut as sh quotes them, quoted back so that staprun's wordexp(3) returns them.
iotap_unit_test(shell_words_test SOURCES util/shell_words_test.cpp util/lines_test.cpp
  LIBS iotap_util)
iotap_unit_test(verbs_test
  SOURCES interval/device_table_test.cpp session/target_options_test.cpp
    session/output_file_test.cpp session/program_output_test.cpp interval/demo_verdict_test.cpp
    session/request_source_test.cpp
    session/kernel_stats_json_test.cpp session/fleet_summary_test.cpp
    session/postgres_options_test.cpp
  LIBS iotap_verbs)
target_compile_definitions(verbs_test PRIVATE
  BLOCK_HASHER_PATH="${CMAKE_BINARY_DIR}/workloads/block_hasher/block_hasher"
  IO_REPLAYER_PATH="${CMAKE_BINARY_DIR}/workloads/io_replayer/io_replayer"
  USDT_REQUESTS="$<TARGET_FILE:usdt_requests>"
  USDT_REQUESTS_PROVIDER="${usdt_requests_provider}")
add_dependencies(verbs_test block_hasher io_replayer usdt_requests)

# The command line, end to end, where no kernel is involved: bad input is one line, exit 2.
set(iotime ${CMAKE_SOURCE_DIR}/examples/iotime.stp)
iotap_cli_test(cli_usage 2 "usage: iotap VERB" )
iotap_cli_test(cli_unknown_verb 2 "iotap: unknown verb 'diagnoze' \\(see 'iotap --help'\\)" diagnoze)
iotap_cli_test(cli_help 0 "verbs:.*demo.*run.*probes" --help)
iotap_cli_test(cli_run_help 0 "usage: iotap run SCRIPT.stp.*__EXE__.*--stack SPEC grammar.*Limits: 16 levels deep; 256 devices in all" run --help)
iotap_cli_test(cli_demo_help 0 "usage: iotap demo.*raid0\\(ram\\*7, delay\\(ram, 50ms\\)\\)" demo --help)
iotap_cli_test(cli_run_bad_stack 2
  "iotap: --stack: unknown device 'dealy' \\(devices: [^\n]*\\) at column 14:\n    raid0\\(ram\\*7, dealy\\(ram, 50ms\\)\\)\n                 \\^"
  run ${iotime} --target vm --stack "raid0(ram*7, dealy(ram, 50ms))" -c "block_hasher -d __DEV__ -b 4096 -t 1")
iotap_cli_test(cli_run_stack_null_bad_latency 2
  "iotap: --stack: expected a duration such as 5ms or 500us, found 'abc' at column 10:\n    null\\(lat=abc\\)\n             \\^"
  run ${iotime} --target vm --stack "null(lat=abc)" -c "block_hasher -d __DEV__ -b 4096 -t 1")
iotap_cli_test(cli_diagnose_stack_raid5_one_member 2
  "iotap: --stack: raid5 needs at least 3 members, got 1 \\(example: raid5\\(ram\\*4\\), or raid5\\(ram\\*3, missing\\)\\) at column 1:"
  diagnose --target vm --stack "raid5(ram)" -c block_hasher)
iotap_cli_test(cli_run_missing_script 2 "iotap: cannot read script '/nonexistent.stp'" run /nonexistent.stp --target vm)
iotap_cli_test(cli_run_no_script 2 "iotap run needs a script" run --target vm)
iotap_cli_test(cli_run_bad_target 2 "--target must be 'local' \\(this kernel\\), 'vm' \\(a qemu guest iotap boots\\) or ssh://" run ${iotime} --target cloud)
# --target ssh://: a malformed address, what cannot go with it, and a host that does not answer
# (port 1 of this machine: refused at once, no network needed).
iotap_cli_test(cli_ssh_bad_port 2 "iotap: --target 'ssh://db7:99999': the port must be a number from 1 to 65535, not '99999' .the form is ssh://.USER@.HOST.:PORT." run ${iotime} --target ssh://db7:99999)
iotap_cli_test(cli_ssh_no_host 2 "iotap: --target 'ssh://root@': no host" run ${iotime} --target ssh://root@)
iotap_cli_test(cli_ssh_with_stack 2 "iotap: --stack builds md/dm devices in a guest: a --target ssh:// host is traced with the devices it has" run ${iotime} --target ssh://db7 --stack "raid0(ram*2)")
iotap_cli_test(cli_ssh_unreachable 2 "iotap: 127.0.0.1:1: ssh could not run iotap's agent there \\(ssh: .*refused\\); check that 'ssh -p 1 127.0.0.1 true' works without a password prompt" run ${iotime} --target ssh://127.0.0.1:1)
# --save-module and --module: compiled on one machine, run on another without ssh (a stand-in
# module for the kernel check: stap/fake_module.c). What cannot go together, and a module that is
# missing, not a module, or for another kernel; all before anything is compiled or loaded.
iotap_cli_test(cli_module_missing 2 "iotap: cannot open module '/nonexistent/m.ko': No such file or directory .give the .ko file that --save-module wrote." run ${iotime} --module /nonexistent/m.ko)
iotap_cli_test(cli_module_not_a_module 2 "iotap: '.*' is not a kernel module .no .modinfo with a name and a vermagic.: give the .ko file that --save-module wrote" run ${iotime} --module ${iotime})
iotap_cli_test(cli_module_other_kernel 2 "iotap: .* was compiled for kernel 5.10.0-99-amd64, but this machine runs .*: save it again with --for-kernel " run ${iotime} --module $<TARGET_OBJECTS:fake_module>)
iotap_cli_test(cli_module_with_vm 2 "iotap: --module runs a saved module on this machine's kernel: it goes with --target local .a vm or ssh:// target's module is compiled for it on each run." run ${iotime} --target vm --module m.ko)
iotap_cli_test(cli_module_and_save_module 2 "iotap: --module runs a saved module and --save-module saves one: give one of them" run ${iotime} --module m.ko --save-module n.ko)
iotap_cli_test(cli_for_kernel_without_save_module 2 "iotap: --for-kernel names the kernel --save-module compiles for: add --save-module FILE" run ${iotime} --for-kernel 6.1.0-56-cloud-amd64)
iotap_cli_test(cli_save_module_with_pid 2 "iotap: -x attaches to a process on this machine, but --save-module makes a module for another one: save it with -c and the program's path, and give -x PID where it runs" run ${iotime} --save-module m.ko -x 1)
iotap_cli_test(cli_save_module_with_ssh 2 "iotap: --save-module compiles for the kernel --for-kernel names, to run elsewhere: it goes with --target local" run ${iotime} --target ssh://db7 --save-module m.ko)
iotap_cli_test(cli_save_module_with_stack 2 "iotap: --stack builds md/dm devices in a guest, but --save-module makes a module for a machine that has its own: leave --stack out .the module traces the devices it finds there." run ${iotime} --save-module m.ko --stack "raid0(ram*2)")
iotap_cli_test(cli_save_module_without_headers 2 "iotap: compiling for kernel 9.9.9-none needs its headers on this machine ./lib/modules/9.9.9-none/build.: apt-get install linux-headers-9.9.9-none" run ${iotime} --save-module m.ko --for-kernel 9.9.9-none)
iotap_cli_test(cli_fleet_with_pid 2 "iotap: -x names one process on one host: give one --target ssh:// with it" diagnose --target ssh://a --target ssh://b -x 1)
iotap_cli_test(cli_fleet_record 2 "iotap: iotap record writes one recording: with several --target ssh:// hosts, record per host" record -o x.rec --target ssh://a --target ssh://b -c true)
iotap_cli_test(cli_fleet_same_host_twice 2 "iotap: ssh://root@a:22 names a host given before: each host once" diagnose --target ssh://a --target ssh://root@a:22 -c true)
iotap_cli_test(cli_fleet_mixed_targets 2 "iotap: --target vm among several --target ssh:// hosts: a fleet is ssh:// hosts only" diagnose --target ssh://a --target vm --target ssh://b -c true)
iotap_cli_test(cli_fleet_verb_traces_nothing 2 "iotap: iotap probes traces nothing: several --target ssh:// hosts are for the tracing verbs" probes --target ssh://a --target ssh://b)
# --guest-kernel (guest/guest_kernels.h): only with --target vm, and a kernel installed here.
# The list names the default guest kernel; its Debian ABI number (the 56 of 6.1.0-56) moves with
# Debian's point releases, so docs/reliability.md's example matches whichever one is installed.
string(REGEX REPLACE "^([0-9.]+)-[0-9]+-" "\\1-[0-9]+-" _default_kernel_any_abi "${IOTAP_GUEST_KERNEL}")
iotap_cli_test(cli_guest_kernel_without_vm 2 "^iotap: --guest-kernel chooses the kernel a --target vm guest boots; a local run traces the kernel that machine runs: add --target vm or leave --guest-kernel out\n$" run ${iotime} --guest-kernel 6.12)
iotap_cli_test(cli_guest_kernel_not_installed 2 "^iotap: --guest-kernel 5.10: no installed kernel is 5.10 \\(installed: [^\n]*${_default_kernel_any_abi}[^\n]*\\); install one \\(linux-image-6.12-cloud-amd64 and linux-headers-6.12-cloud-amd64 for 6.12; ./setup.sh installs both series\\)\n$" run ${iotime} --target vm --guest-kernel 5.10)
iotap_cli_test(cli_demo_guest_kernel_not_installed 2 "^iotap: --guest-kernel 5.10: no installed kernel is 5.10 " demo --guest-kernel 5.10)
iotap_cli_test(cli_run_stack_without_vm 2 "--stack builds md/dm devices in a guest: add --target vm" run ${iotime} --stack "raid0(ram*2)")
# --postgres (session/postgres_options.h): a guest's, on a stack, and its companions with it.
iotap_cli_test(cli_postgres_on_local 2 "^iotap: --postgres starts PostgreSQL in a guest: add --target vm \\(on this machine or an ssh:// host, trace the server already running there: -c 'psql ...' or -x PID\\)\n$" run ${iotime} --postgres --sql "SELECT 1")
iotap_cli_test(cli_postgres_without_stack 2 "^iotap: --postgres puts its data directory on the stack's top device: add --stack SPEC, e.g. --stack 'raid0\\(ram\\*2\\)'\n$" run ${iotime} --target vm --postgres)
iotap_cli_test(cli_sql_without_postgres 2 "^iotap: --sql goes with --postgres, which starts the server it talks to: add --postgres --target vm --stack SPEC\n$" run ${iotime} --target vm --stack "raid0(ram*2)" --sql "SELECT 1")
iotap_cli_test(cli_sql_with_command 2 "^iotap: --sql runs its statements with psql, -c runs your own command: give one of them \\(-c 'psql -c ...' for both\\)\n$" run ${iotime} --target vm --stack "raid0(ram*2)" --postgres --sql "SELECT 1" -c true)
iotap_cli_test(cli_postgres_rows_zero 2 "^iotap: --postgres-rows must be a positive number of rows, got '0'\n$" run ${iotime} --target vm --stack "raid0(ram*2)" --postgres --postgres-rows 0)
iotap_cli_test(cli_run_unknown_program 2 "-c: program 'no-such-program' not found" run ${iotime} --target vm -c no-such-program)
iotap_cli_test(cli_run_dev_without_stack 2 "-c uses __DEV__, which stands for the top device of --stack" run ${iotime} --target vm -c "block_hasher -d __DEV__")
iotap_cli_test(cli_run_unclosed_quote 2
  "^iotap: -c: the ' at column 17 is never closed: close it, or write a literal ' as .' outside quotes\n$"
  run ${iotime} --target vm -c "block_hasher -d 'x")
iotap_cli_test(cli_run_pid_in_vm 2 "-x attaches to a process on this host" run ${iotime} --target vm -x 1)
iotap_cli_test(cli_run_unknown_option 2 "iotap run: unrecognised option '--stak'" run ${iotime} --stak x)
# stap's options: passed on, or refused with why, before anything is compiled. After --, every
# word is the script's (--stak would otherwise be unknown; here the local kernel is refused).
iotap_cli_test(cli_run_help_stap_options 0 "usage: iotap run SCRIPT.stp \\[ARG\\.\\.\\.\\].*after '--' every word is an argument.*-D, -G, -g, -d, -v, -T, --all-modules and --suppress-time-limits are passed on.*Refused, because iotap sets them: -p, -m, -r, -R, -I, --runtime.*-D NAME\\[=VALUE\\].*-G NAME=VALUE.*-v \\[ --verbose \\]" run --help)
iotap_cli_test(cli_run_define_bad_name 2 "^iotap: -D takes NAME or NAME=VALUE [^\n]*got '1X=3'\n$" run ${iotime} -D 1X=3 --target vm)
iotap_cli_test(cli_run_define_bad_value 2 "^iotap: -D takes NAME or NAME=VALUE [^\n]*got 'X=a b'\n$" run ${iotime} -D "X=a b" --target vm)
iotap_cli_test(cli_run_global_without_value 2 "^iotap: -G takes NAME=VALUE, a global of the script and its value [^\n]*got 'limit'\n$" run ${iotime} -G limit --target vm)
iotap_cli_test(cli_run_global_bad_value 2 "^iotap: -G takes NAME=VALUE[^\n]*got 'path=/tmp'\n$" run ${iotime} -G path=/tmp --target vm)
iotap_cli_test(cli_run_suppress_limits_without_guru 2 "^iotap: --suppress-time-limits [^\n]*guru mode only: add -g\n$" run ${iotime} --suppress-time-limits --target vm)
iotap_cli_test(cli_run_exit_after_zero 2 "^iotap: -T must be a positive number of seconds, got '0'\n$" run ${iotime} -T 0 --target vm)
iotap_cli_test(cli_run_stap_pass 2 "^iotap: -p is iotap's: it compiles \\(pass 4\\) and runs the module itself; to see stap's passes, use -v\n$" run ${iotime} -p4 --target vm)
iotap_cli_test(cli_run_stap_module_name 2 "^iotap: -m is iotap's" run ${iotime} -m mine --target vm)
iotap_cli_test(cli_run_stap_release 2 "^iotap: -r is iotap's: the kernel is --target's" run ${iotime} -r 6.1.0 --target vm)
iotap_cli_test(cli_run_stap_runtime_dir 2 "^iotap: -R is iotap's" run ${iotime} -R /tmp --target vm)
iotap_cli_test(cli_run_stap_include 2 "^iotap: -I is iotap's: it passes the bundled tapsets" run ${iotime} -I /tmp --target vm)
iotap_cli_test(cli_run_stap_expression 2 "^iotap: -e is not taken: iotap run runs a script file" run ${iotime} -e "probe begin {}" --target vm)
iotap_cli_test(cli_run_stap_list 2 "^iotap: -L lists probe points and runs nothing" run ${iotime} -L "kernel.function(\"vfs_read\")" --target vm)
iotap_cli_test(cli_run_stap_flight_recorder 2 "^iotap: -F \\(flight recorder\\) is not taken" run ${iotime} -F --target vm)
iotap_cli_test(cli_run_stap_bulk 2 "^iotap: -b \\(bulk mode\\) is not taken" run ${iotime} -b --target vm)
iotap_cli_test(cli_run_stap_bpf 2 "^iotap: --runtime is iotap's: it builds a kernel module \\(bpf and dyninst do not run in the guest\\)\n$" run ${iotime} --runtime=bpf --target vm)
iotap_cli_test(cli_run_args_after_double_dash 2 "^iotap: -c: program 'no-such-program' not found" run ${iotime} --target vm -c no-such-program -- --stak -x -5)
iotap_cli_test(cli_attribute_help 0 "usage: iotap attribute -c CMD.*--slowest N" attribute --help)
iotap_cli_test(cli_diagnose_help 0 "usage: iotap diagnose -c CMD.*no slow member" diagnose --help)
# Every verb's --help ends with the exit statuses it can end with; iotap --help lists them all.
iotap_cli_test(cli_help_exit_statuses 0
  "exit status:\n  0 .*\n  N .*\n  2 .*\n  3    attribute, diagnose: nothing to attribute.*\n  70 .*\n  130 .*\n  143 "
  --help)
iotap_cli_test(cli_diagnose_help_exit_statuses 0
  "the program's output: every line.*exit status:.*\n  3    attribute, diagnose.*\n  143  terminated" diagnose --help)
iotap_cli_test(cli_latency_help_exit_statuses 0 "exit status:.*\n  130 .*\n  143 " latency --help)
set_tests_properties(cli_latency_help_exit_statuses PROPERTIES FAIL_REGULAR_EXPRESSION "\n  3    ")
iotap_cli_test(cli_diagnose_needs_a_program 2 "give the program whose requests to follow: -c" diagnose --target vm --stack "raid0(ram*2)")
# Attaching (no -c or -x, --requests usdt:NAME) is for a server already running: a guest has none.
iotap_cli_test(cli_diagnose_attach_in_a_guest 2
  "^iotap: --requests usdt:postgresql without -c or -x attaches to the processes already running"
  diagnose --target vm --requests usdt:postgresql)
iotap_cli_test(cli_diagnose_requests_bad_value 2
  "iotap: --requests must be 'usdt' \\(the program's USDT probes\\), 'usdt:PROVIDER'.* or 'syscall'.*not 'usdtt'"
  diagnose --target vm --stack "raid0(ram*2)" --requests usdtt -c "dd if=__DEV__ of=/dev/null")
iotap_cli_test(cli_diagnose_requests_usdt_without_probes 2
  "iotap: --requests usdt: /.*/dd has no USDT probes iotap knows.*leave --requests out"
  diagnose --target vm --stack "raid0(ram*2)" --requests usdt -c "dd if=__DEV__ of=/dev/null")
iotap_cli_test(cli_diagnose_bad_stack 2 "--stack: raid1 needs at least 2 members, got 1" diagnose --target vm --stack "raid1(ram)" -c block_hasher)

# Numbers and stack specs that cannot work fail at once (issue 9): one line, exit 2, before any
# compile, so each of these takes milliseconds.
set(vm_run run ${iotime} --target vm -c "block_hasher -d __DEV__ -b 4096 -t 1")
iotap_cli_test(cli_run_negative_timeout 2 "^iotap: --timeout must be a positive number of seconds, got '-5'\n$"
  ${vm_run} --stack "raid0(ram*2)" --timeout -5)
iotap_cli_test(cli_run_negative_memory 2 "^iotap: --memory must be a positive number of MiB, got '-1'\n$"
  ${vm_run} --stack "raid0(ram*2)" --memory -1)
iotap_cli_test(cli_run_huge_timeout 2 "^iotap: --timeout must be at most 4294967295 seconds, got '4294967296'\n$"
  ${vm_run} --stack "raid0(ram*2)" --timeout 4294967296)
iotap_cli_test(cli_run_negative_pid 2 "^iotap: -x must be a process id \\(a positive number\\), got '-5'\n$"
  run ${iotime} -x -5)
iotap_cli_test(cli_attribute_negative_slowest 2 "^iotap: --slowest must be a positive number of reads, got '-1'\n$"
  attribute --target vm --stack "raid0(ram*2)" -c block_hasher --slowest -1)
iotap_cli_test(cli_demo_zero_timeout 2 "^iotap: --timeout must be a positive number of seconds, got '0'\n$"
  demo --timeout 0)
string(REPEAT "linear(" 8000 deep_stack)
iotap_cli_test(cli_run_stack_too_deep 2 "iotap: --stack: the stack is more than 16 levels deep, [^\n]* at column 113:\n    \\.\\.\\.ear\\(linear"
  ${vm_run} --stack "${deep_stack}ram")
iotap_cli_test(cli_run_stack_too_many_devices 2 "iotap: --stack: more than 256 devices, the most a stack has [^\n]* at column 20:\n    raid0\\(raid0\\(ram\\*64\\)\\*64\\)\n                       \\^"
  ${vm_run} --stack "raid0(raid0(ram*64)*64)")
iotap_cli_test(cli_diagnose_stack_option_twice 2 "iotap: --stack: option 'chunk' is given twice \\(first at column 7\\) at column 18:"
  diagnose --target vm --stack "raid0(chunk=64k, chunk=128k, ram*2)" -c block_hasher)
iotap_cli_test(cli_run_stack_size_on_array 2 "iotap: --stack: a size belongs to a disk \\(ram:128M, virtio:1G\\); raid0's size comes from its members at column 13:"
  ${vm_run} --stack "raid0(ram*2):5G")
iotap_cli_test(cli_run_stack_beyond_memory 2 "^iotap: --stack: the ram disks take 2048 MiB \\(4 x 512M\\) but --memory 1024 leaves them 768 MiB \\(256 MiB go to the guest's kernel, initrd and stap\\): raise --memory to at least 2304, or make the disks smaller\n$"
  ${vm_run} --stack "raid0(ram:512M*4)")
iotap_cli_test(cli_diagnose_stack_too_many_virtio 2 "iotap: --stack: more than 26 virtio disks, the most a guest names \\(vda to vdz\\); use ram disks for the rest at column 13:"
  diagnose --target vm --stack "raid0(virtio*27)" -c block_hasher)
iotap_cli_test(cli_run_stack_error_two_members 2 "iotap: --stack: error takes at most 1 member, got 2 \\(example: error\\(ram\\), or error alone\\) at column 14:"
  ${vm_run} --stack "raid0(ram*2, error(ram, ram))")
iotap_cli_test(cli_run_stack_non_ascii 2 "iotap: --stack: unexpected character 'é' [^\n]* at column 15:\n    raid0\\(ram\\*2, délay\\(ram, 5ms\\)\\)\n                  \\^"
  ${vm_run} --stack "raid0(ram*2, délay(ram, 5ms))")

# Naming kernel addresses on the host from the target's kallsyms, the framed block the guest
# sends it in, and the marker that ends a run's streams.
iotap_unit_test(symbols_test
  SOURCES symbols/kernel_symbols_test.cpp guest/leading_block_test.cpp guest/stream_end_test.cpp
  LIBS iotap_symbols iotap_guest)

# iotap guest: its usage errors, before anything boots.
iotap_cli_test(cli_guest_no_action 2 "^iotap: iotap guest needs an action: start, stop or status\n$" guest)
iotap_cli_test(cli_guest_unknown_action 2 "^iotap: iotap guest: unknown action 'begin'" guest begin)
iotap_cli_test(cli_guest_stop_none 2 "^iotap: no guest runs at /nonexistent/iotap-guest;" guest stop --dir /nonexistent/iotap-guest)
iotap_cli_test(cli_guest_status_none 1 "^no guest runs at /nonexistent/iotap-guest\n$" guest status --dir /nonexistent/iotap-guest)

# `iotap help VERB` shows that verb's help, as `iotap VERB --help` does.
iotap_cli_test(cli_help_verb 0 "^usage: iotap run SCRIPT.stp.*--stack SPEC grammar" help run)
iotap_cli_test(cli_help_probes 0 "^usage: iotap probes BINARY" help probes)
iotap_cli_test(cli_help_unknown_verb 2 "^iotap: unknown verb 'nosuchverb' \\(see 'iotap --help'\\)\n$" help nosuchverb)
iotap_cli_test(cli_help_help 0 "^usage: iotap VERB" help help)
# --version says whether stap will find the guest kernel's debuginfo.
iotap_cli_test(cli_version 0
  "^iotap [0-9.]+ .*(guest kernel: [^\n]+\ndebuginfo:    (/[^\n]*vmlinux-|not installed [^\n]*apt-get install linux-image-[^\n]*-dbg)|guest kernel: none)"
  --version)
# The script is checked before anything runs: a directory, a FIFO, a device node.
iotap_cli_test(cli_run_directory 2
  "^iotap: [^\n]*/tests/unit is a directory, not a script \\(name the .stp file\\)\n$"
  run ${CMAKE_CURRENT_SOURCE_DIR} --target vm)
iotap_cli_fifo_test(cli_run_fifo 2
  "^iotap: [^\n]*/cli_run_fifo.stp is a FIFO \\(named pipe\\), not a script \\(name a .stp file on disk\\)\n$"
  ${CMAKE_CURRENT_BINARY_DIR}/cli_run_fifo.stp run ${CMAKE_CURRENT_BINARY_DIR}/cli_run_fifo.stp --target vm)
iotap_cli_test(cli_run_device 2
  "^iotap: /dev/null is a character device, not a script" run /dev/null --target vm)
# A marker without a value is refused before the compile starts (no "compiling" line first).
iotap_cli_test(cli_run_marker_without_value 2
  "^iotap: [^\n]*pid_marker.stp uses __PID__, which needs -x PID \\(line 3\\)\n$"
  run ${CMAKE_CURRENT_SOURCE_DIR}/data/pid_marker.stp --target vm)

# iotap report: a saved attribution to HTML; every bad input a one-line message and status 2
# (not_json.txt and run.json are recording.cmake's).
iotap_cli_test(cli_report_help 0 "usage: iotap report RESULT.json -o FILE.html.*fetches nothing" report --help)
iotap_cli_test(cli_report_needs_a_file 2
  "^iotap: iotap report needs a saved attribution: iotap report RESULT.json -o FILE.html \\(see 'iotap report --help'\\)\n$"
  report)
iotap_cli_test(cli_report_needs_output 2 "^iotap: iotap report needs -o FILE.html: where to write the page\n$"
  report result.json)
iotap_cli_test(cli_report_missing_file 2 "^iotap: cannot read '/no/such.json': No such file or directory\n$"
  report /no/such.json -o "${CMAKE_CURRENT_BINARY_DIR}/report_missing.html")
iotap_cli_test(cli_report_not_json 2
  "^iotap: [^\n]*/not_json.txt is not JSON \\(give what iotap attribute, diagnose or replay printed with --json\\)\n$"
  report "${CMAKE_CURRENT_BINARY_DIR}/not_json.txt" -o "${CMAKE_CURRENT_BINARY_DIR}/report_not_json.html")
iotap_cli_test(cli_report_not_an_attribution 2
  "^iotap: [^\n]*/run.json is not an iotap attribution \\(the --json of iotap attribute, diagnose or replay, schema iotap.attribution/3 or iotap.attribution/2\\)\n$"
  report "${CMAKE_CURRENT_BINARY_DIR}/run.json" -o "${CMAKE_CURRENT_BINARY_DIR}/report_run.html")
iotap_cli_test(cli_report_output_is_a_directory 2 "^iotap: cannot write -o '/': it is a directory"
  report "${CMAKE_CURRENT_BINARY_DIR}/run.json" -o /)
iotap_cli_test(cli_attribute_html_is_a_directory 2 "^iotap: cannot write --html '/': it is a directory"
  attribute --html / --target local -c true)
iotap_cli_test(cli_attribute_perfetto_is_a_directory 2
  "^iotap: cannot write --perfetto '/': it is a directory" attribute --perfetto / --target local -c true)
iotap_cli_test(cli_record_perfetto_is_a_directory 2
  "^iotap: cannot write --perfetto '/': it is a directory"
  record --perfetto / -o "${CMAKE_CURRENT_BINARY_DIR}/perfetto_refused.rec" --target local -c true)

# The man pages hold every line of --help, man renders them, and bash completes verbs, options
# and --stack's kinds from iotap's own --help.
add_test(NAME man_pages_and_completion
         COMMAND ${CMAKE_COMMAND} -DIOTAP=$<TARGET_FILE:iotap> -DMAN_DIR=${IOTAP_MAN_DIR}
                 -DCOMPLETION=${PROJECT_SOURCE_DIR}/completions/iotap.bash
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/check_man_and_completion.cmake)
set_tests_properties(man_pages_and_completion PROPERTIES LABELS unit TIMEOUT 60)

# iotap doctor: what this machine can trace (tests/unit/doctor/doctor_test.cpp judges made-up
# machines; these run the verb on this one).
iotap_unit_test(doctor_test SOURCES doctor/doctor_test.cpp LIBS iotap_doctor)
iotap_cli_test(cli_doctor_help 0 "usage: iotap doctor.*boots nothing and loads nothing" doctor --help)
iotap_cli_test(cli_doctor_guest_ready 0 "--target vm: a qemu guest iotap boots, with md, dm and the probes: ready\n.*iotap can trace here with --target vm" doctor --target vm)
iotap_cli_test(cli_doctor_json 0 "\"schema\": \"iotap.doctor/1\"" doctor --target vm --json)
iotap_cli_test(cli_doctor_unknown_target 2 "^iotap: --target is vm, local or ssh://.USER@.HOST.:PORT., not 'vn'\n$" doctor --target vn)
# Without stap and qemu on PATH: the run says what is missing and points at the doctor, and the
# doctor finds no target ready (exit 1) and says what to install.
iotap_cli_test(cli_run_without_stap 2
  "^iotap: (stap is not installed|--target vm needs qemu-system-x86_64) \\(apt-get install [a-z0-9-]+; ./setup.sh does; 'iotap doctor' checks the rest\\)\n$"
  run ${iotime} --target vm -c /bin/true)
iotap_cli_test(cli_doctor_without_stap 1
  "missing +stap +not installed: nothing can be compiled\n +fix: apt-get install systemtap(.|\n)*iotap cannot trace on this machine yet"
  doctor)
set_tests_properties(cli_run_without_stap cli_doctor_without_stap PROPERTIES ENVIRONMENT "PATH=/nonexistent")

# issue 27: checks that came late or said the wrong thing, each now before any compile or boot.
# --idle-minutes: the guest's `read -t` refused -1 and 2147483647 minutes, and it powered off at
# once while start said it ran.
iotap_cli_test(cli_guest_idle_minutes_negative 2
  "^iotap: --idle-minutes must be a positive number of minutes, got '-1'\n$"
  guest start --idle-minutes=-1 --dir /nonexistent/iotap-guest)
iotap_cli_test(cli_guest_idle_minutes_too_many 2
  "^iotap: --idle-minutes must be at most 10080 minutes \\(a week\\), got '2147483647'\n$"
  guest start --idle-minutes 2147483647 --dir /nonexistent/iotap-guest)
iotap_cli_test(cli_guest_memory_negative 2
  "^iotap: --memory must be a positive number of MiB, got '-1'\n$"
  guest start --memory=-1 --dir /nonexistent/iotap-guest)
# guest stop touches only a guest's directory (it unlinked /etc/lock, had there been one, and
# said /etc was removed).
iotap_cli_test(cli_guest_stop_not_a_guest_dir 2
  "^iotap: no guest runs at /etc \\(and '/etc' is not a guest's directory: left as it is\\); "
  guest stop --dir /etc)
# --save-module's file, and --for-kernel's release, before the compile (a directory was refused
# after 5.6 s of it; /proc/version said "No such file or directory").
set(for_guest_kernel --for-kernel 6.1.0-56-cloud-amd64)
iotap_cli_test(cli_save_module_directory 2
  "^iotap: cannot write --save-module '/tmp': it is a directory \\(name a file in a directory you can write to\\)\n$"
  run ${iotime} --save-module /tmp ${for_guest_kernel})
iotap_cli_test(cli_save_module_kernel_file 2
  "^iotap: cannot write --save-module '/proc/version': it is a kernel interface file \\(name a file in a directory you can write to\\)\n$"
  run ${iotime} --save-module /proc/version ${for_guest_kernel})
iotap_cli_test(cli_save_module_device 2
  "^iotap: cannot write --save-module '/dev/null': it is a character device, not a regular file \\(name a file in a directory you can write to\\)\n$"
  run ${iotime} --save-module /dev/null ${for_guest_kernel})
iotap_cli_test(cli_save_module_no_directory 2
  "^iotap: cannot write --save-module '/nonexistent/m.ko': no directory '/nonexistent' \\(name a file in a directory you can write to\\)\n$"
  run ${iotime} --save-module /nonexistent/m.ko ${for_guest_kernel})
iotap_cli_test(cli_for_kernel_not_a_release 2
  "^iotap: --for-kernel '../../../../tmp' is not a kernel release: give it as uname -r prints it there \\(letters, digits and ._\\+-, e.g. 6.1.0-56-cloud-amd64\\)\n$"
  run ${iotime} --save-module m.ko --for-kernel ../../../../tmp)
# replay --device in a guest: one of --stack's devices, or refused before the guest boots (it
# booted one and then exited 3: /dev/sda is not there).
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/one_read.rec"
  "iotap-recording 1\nheader {}\n0 0 R 0 4096 4096 9 9:0 1 read\nend {\"requests\":1}\n")
iotap_cli_test(cli_replay_vm_device_not_in_stack 2
  "^iotap: --device /dev/sda is not a device of --stack in the guest: leave it out for the top \\(/dev/md0\\), or name one of /dev/md0, /dev/ram0, /dev/ram1\n$"
  replay "${CMAKE_CURRENT_BINARY_DIR}/one_read.rec" --target vm --stack "raid0(ram*2)" --device /dev/sda)
iotap_cli_test(cli_replay_vm_device_without_stack 2
  "^iotap: --device /dev/ram0: a guest has no devices but the ones --stack builds: add --stack SPEC\n$"
  replay "${CMAKE_CURRENT_BINARY_DIR}/one_read.rec" --target vm --device /dev/ram0)
# Messages that said the wrong thing: a CR LF recording ("reads 'iotap-recording 1', not
# 'iotap-recording 1'"), a directory ("the file is empty"), a decimal duration ("needs a unit"),
# a byte that is not UTF-8 (printed alone).
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/crlf.rec" "iotap-recording 1\r\nheader {}\r\nend {\"requests\":0}\r\n")
iotap_cli_test(cli_replay_crlf_recording 2
  "^iotap: [^\n]*/crlf.rec: byte 0 \\(line 1\\): its lines end in CR LF \\('iotap-recording 1\\\\r'\\), not LF: it was converted to DOS line ends \\(dos2unix puts it back\\) \\(iotap replay takes what iotap record wrote\\)\n$"
  replay "${CMAKE_CURRENT_BINARY_DIR}/crlf.rec" --target vm --stack "raid0(ram*2)")
iotap_cli_test(cli_replay_directory 2
  "^iotap: [^\n]*'?/tmp'?[^\n]*[Ii]s a directory"
  replay /tmp --target vm --stack "raid0(ram*2)")
iotap_cli_test(cli_run_stack_delay_half_ms 2
  "^iotap: --stack: dm-delay counts whole milliseconds: '0.5ms' is not a whole number of them at column 23:"
  ${vm_run} --stack "raid0(ram, delay(ram, 0.5ms))")
iotap_cli_test(cli_run_stack_null_fraction_of_ns 2
  "^iotap: --stack: null_blk counts whole nanoseconds: '0.5ns' is a fraction of one at column 21:"
  ${vm_run} --stack "raid0(ram, null(lat=0.5ns))")
string(ASCII 255 byte_ff)
iotap_cli_test(cli_ssh_user_not_utf8 2
  "^iotap: --target 'ssh://r\\\\xff@db7': the user name has a '\\\\xff' \\(the form is"
  run ${iotime} --target "ssh://r${byte_ff}@db7" -c /bin/true)
# A fleet whose every host fails exits 4 ("some host's run failed"), not the hosts' own 2.
iotap_cli_test(cli_fleet_every_host_fails 4
  "fleet: 2 hosts, 0 ran, 2 failed\n  failed: 127.0.0.1:1: ssh could not run iotap's agent there"
  run ${iotime} --target ssh://127.0.0.1:1 --target ssh://127.0.0.1:2 -c /bin/true)

# issue 27: stap's -d MODULE is taken (a module name or a file), and for --target vm a name is the
# guest kernel's module, checked before anything compiles; -G with a SystemTap keyword, which no
# script can declare, is refused in one line (run --help's example once read -G limit=3).
iotap_cli_test(cli_run_global_keyword 2
  "^iotap: -G limit=3: 'limit' is a SystemTap keyword, which no script can have as a global: name another of the script's globals, e.g. -G interval=5\n$"
  run ${iotime} -G limit=3 --target vm)
iotap_cli_test(cli_run_unwind_bad_name 2
  "^iotap: -d takes a kernel module's name \\(letters, digits, _ and -\\), e.g. -d raid0, or the path of a module or program, as stap does; got 'raid0.ko'\n$"
  run ${iotime} -d raid0.ko --target vm)
iotap_cli_test(cli_run_unwind_missing_file 2
  "^iotap: -d /nonexistent/raid0.ko: no such file \\(-d takes a kernel module's name, e.g. -d raid0, or a file's path\\)\n$"
  run ${iotime} -d /nonexistent/raid0.ko --target vm)
iotap_cli_test(cli_run_unwind_unknown_guest_module 2
  "^iotap: -d nosuchmodule: kernel [^ ]+ has no module 'nosuchmodule' in /lib/modules/[^ ]+/modules.dep\n$"
  run ${iotime} -d nosuchmodule --target vm)
iotap_cli_test(cli_run_help_unwind_and_interrupts 0
  "-D, -G, -g, -d, -v, -T, --all-modules and --suppress-time-limits are passed on.*With --target vm, -d MODULE \\(a name, e.g. -d raid0\\) is the guest kernel's module.*Your script compiles as stap compiles it.*-G max_lines=3"
  run --help)
iotap_unit_test(guest_modules_test SOURCES guest/guest_modules_test.cpp LIBS iotap_guest)

# issue 27: outputs. Two outputs naming one file (the later replaced the earlier) are refused
# before anything runs (empty option values: output_files_test, as a CLI test cannot pass an
# empty word); so is a device as the --module to load (libelf read /dev/zero for ever).
iotap_cli_test(cli_attribute_html_and_output_same_file 2
  "^iotap: -o '[^\n]*/same.out' and --html '[^\n]*/same.out' name the same file: one would replace the other; name two files\n$"
  attribute --html ${CMAKE_CURRENT_BINARY_DIR}/same.out -o ${CMAKE_CURRENT_BINARY_DIR}/same.out --target local -c true)
iotap_cli_test(cli_attribute_perfetto_and_html_same_file 2
  "^iotap: --html '[^\n]*/same.out' and --perfetto '[^\n]*/./same.out' name the same file: one would replace the other; name two files\n$"
  attribute --html ${CMAKE_CURRENT_BINARY_DIR}/same.out --perfetto ${CMAKE_CURRENT_BINARY_DIR}/./same.out --target local -c true)
iotap_cli_test(cli_record_perfetto_and_output_same_file 2
  "^iotap: -o '[^\n]*/same.rec' and --perfetto '[^\n]*/same.rec' name the same file: one would replace the other; name two files\n$"
  record --perfetto ${CMAKE_CURRENT_BINARY_DIR}/same.rec -o ${CMAKE_CURRENT_BINARY_DIR}/same.rec --target local -c true)
iotap_cli_test(cli_run_module_dev_zero 2
  "^iotap: /dev/zero is a character device, not a kernel module \\(give the .ko file that --save-module wrote\\)\n$"
  run ${CMAKE_SOURCE_DIR}/examples/iotime.stp --target local --module /dev/zero -c true)
# Special files and stdout, run as a user runs them: a FIFO output waited for and a stop signal
# ending the wait (130, 143), a report on a full stdout (/dev/full) an error, empty option values
# refused; recordings replaced only when committed, an output that is an input refused.
iotap_unit_test(output_files_test
  SOURCES session/special_files_test.cpp session/output_commit_test.cpp util/input_file_test.cpp
  LIBS iotap_verbs)
target_compile_definitions(output_files_test PRIVATE IOTAP_BINARY="$<TARGET_FILE:iotap>"
  ATTRIBUTION_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data/attribution")
add_dependencies(output_files_test iotap)
