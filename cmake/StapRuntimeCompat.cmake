# Copies SystemTap's runtime to DEST and applies the changes the guest kernel needs.
# Run with cmake -P at build time; never edits the system's copy.
#
# Known break (systemtap 4.8 against stable 6.1 kernels from 6.1.0-56 on): the kernel renamed
# task_work_cancel(task, func) to task_work_cancel_func(task, func), and task_work_cancel now
# takes a callback_head and returns bool. The runtime resolves the function through kallsyms,
# so the fix is to take the type and the symbol name from task_work_cancel_func.
#
# Known bug (systemtap 4.8's relay transport): __stp_print_flush() needs the header of a message
# to fit whole in the current sub-buffer, but _stp_data_write_reserve() only switches to a new
# sub-buffer once the current one is completely full. A flush that lands in the last few bytes
# of a sub-buffer is dropped and counted as a "transport failure" whatever the buffer size (seen:
# 10 of ~1000 event lines lost per guest run, with -s 16 and -s 64 alike). The fix switches
# sub-buffers when fewer than 64 bytes are left, which wastes at most 64 bytes of each 4 KiB.
#
# Known break (systemtap 4.8 on Linux 6.0 and later): kprobe.module("M").function("F") never
# fires. The runtime turns a symbol_name probe into an address by walking
# kallsyms_on_each_symbol(), and when that finds nothing it gives up silently (module probes
# get no registration warning). Since Linux 6.0 kallsyms_on_each_symbol() walks vmlinux only;
# module symbols are walked by module_kallsyms_on_each_symbol(). So every module probe was
# dropped: the "kprobe.module(\"raid0\") mystery" in docs/toolbox.md. The fix hands a module
# probe that was not found to register_kprobe() by name ("raid0:raid0_make_request"), which
# the kernel resolves with kallsyms_lookup_name(), module symbols included.
#
# DEST/iotap-compat.txt records which changes were applied; tests read it.
foreach(var SOURCE DEST TASK_WORK_HEADER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "StapRuntimeCompat.cmake: ${var} is not set")
  endif()
endforeach()

file(REMOVE_RECURSE "${DEST}")
file(COPY "${SOURCE}/" DESTINATION "${DEST}")

# patch(FILE FROM TO [FROM TO ...]): replaces each FROM in DEST/FILE by its TO; a FROM that is
# missing means this SystemTap's runtime changed, and the build stops rather than guess.
function(patch file)
  set(path "${DEST}/${file}")
  file(READ "${path}" text)
  set(replacements ${ARGN})
  while(replacements)
    list(POP_FRONT replacements from to)
    string(REPLACE "@SC@" ";" from "${from}")
    string(REPLACE "@SC@" ";" to "${to}")
    string(FIND "${text}" "${from}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "stap runtime compat: '${from}' not found in ${path}; "
                          "this SystemTap's runtime changed, revisit cmake/StapRuntimeCompat.cmake")
    endif()
    string(REPLACE "${from}" "${to}" text "${text}")
  endwhile()
  file(WRITE "${path}" "${text}")
endfunction()

set(applied "")
file(READ "${TASK_WORK_HEADER}" header)
if(header MATCHES "task_work_cancel_func")
  patch(stp_task_work.c
        "typeof(&task_work_cancel)" "typeof(&task_work_cancel_func)"
        "kallsyms_lookup_name(\"task_work_cancel\")" "kallsyms_lookup_name(\"task_work_cancel_func\")")
  list(APPEND applied "task_work_cancel_func")
endif()
patch(transport/relay_v2.c
      "	if (buf->offset >= buf->chan->subbuf_size) {\n		size_request = __stp_relay_switch_subbuf(buf, size_request);"
      "	if (buf->offset >= buf->chan->subbuf_size || buf->chan->subbuf_size - buf->offset < 64) {\n		size_request = __stp_relay_switch_subbuf(buf, size_request);")
list(APPEND applied "relay_subbuf_tail")

set(_module_probe "(skp->module && skp->module[0] && strcmp(skp->module, \"kernel\") != 0)")
# (No ';' in these strings: CMake would split the argument list there. The else-if line is the
# same in the kprobe and kretprobe functions; u.kp and u.krp.kp are the same struct kprobe, as
# kretprobe's first member, so one test of u.kp.addr serves both.)
patch(linux/kprobes.c
      "if (USE_KALLSYMS_ON_EACH_SYMBOL && kp->addr == 0)\n"
      "if (USE_KALLSYMS_ON_EACH_SYMBOL && kp->addr == 0 && !${_module_probe})\n"
      "if (USE_KALLSYMS_ON_EACH_SYMBOL && krp->kp.addr == 0)\n"
      "if (USE_KALLSYMS_ON_EACH_SYMBOL && krp->kp.addr == 0 && !${_module_probe})\n"
      "else if (!USE_KALLSYMS_ON_EACH_SYMBOL) {"
      "else if (!USE_KALLSYMS_ON_EACH_SYMBOL || (${_module_probe} && skp->kprobe->u.kp.addr == 0)) {")
list(APPEND applied "module_probes_by_name")

# Known bug (systemtap 4.8's control channel): _stp_ctl_work_callback (a timer, every few
# jiffies), _stp_ctl_send and _stp_ctl_log_werr hold the CPU's probe context to keep probes out
# of their locks, with interrupts on. A probe hit from an interrupt in that window (a disk's
# completion) finds the context busy and is skipped: "skipped probes: 2" about one guest run in
# eight of 1280 null_blk requests, under INTERRUPTIBLE=0 (stap/compiler.cpp). With interrupts
# off while the context is held, the interrupt waits and its probe runs. (@SC@ is a ';'.)
patch(transport/transport.c
      "	unsigned long flags@SC@\n	struct context* __restrict__ c = NULL@SC@\n\n	/* Prevent probe reentrancy while grabbing probe-used locks.  */\n	c = _stp_runtime_entryfn_get_context()@SC@"
      "	unsigned long flags, iotap_irq_flags@SC@\n	struct context* __restrict__ c = NULL@SC@\n\n	/* Prevent probe reentrancy while grabbing probe-used locks.  */\n	local_irq_save(iotap_irq_flags)@SC@\n	c = _stp_runtime_entryfn_get_context()@SC@"
      "	stp_spin_unlock_irqrestore(&_stp_ctl_ready_lock, flags)@SC@\n\n	_stp_runtime_entryfn_put_context(c)@SC@\n\n	if (do_io)"
      "	stp_spin_unlock_irqrestore(&_stp_ctl_ready_lock, flags)@SC@\n\n	_stp_runtime_entryfn_put_context(c)@SC@\n	local_irq_restore(iotap_irq_flags)@SC@\n\n	if (do_io)")
patch(transport/control.c
      "	struct _stp_buffer *bptr@SC@\n	unsigned long flags@SC@\n	unsigned hlen@SC@"
      "	struct _stp_buffer *bptr@SC@\n	unsigned long flags, iotap_irq_flags@SC@\n	unsigned hlen@SC@"
      "	c = _stp_runtime_entryfn_get_context()@SC@\n\n	/* get a buffer from the free pool */"
      "	local_irq_save(iotap_irq_flags)@SC@\n	c = _stp_runtime_entryfn_get_context()@SC@\n\n	/* get a buffer from the free pool */"
      "		_stp_runtime_entryfn_put_context(c)@SC@\n		return -ENOMEM@SC@"
      "		_stp_runtime_entryfn_put_context(c)@SC@\n		local_irq_restore(iotap_irq_flags)@SC@\n		return -ENOMEM@SC@"
      "	_stp_runtime_entryfn_put_context(c)@SC@\n\n	/* It would be nice"
      "	_stp_runtime_entryfn_put_context(c)@SC@\n	local_irq_restore(iotap_irq_flags)@SC@\n\n	/* It would be nice"
      "	struct _stp_buffer *bptr@SC@\n	unsigned long flags@SC@\n\n	c = _stp_runtime_entryfn_get_context()@SC@\n	bptr = _stp_ctl_get_buffer(STP_OOB_DATA"
      "	struct _stp_buffer *bptr@SC@\n	unsigned long flags, iotap_irq_flags@SC@\n\n	local_irq_save(iotap_irq_flags)@SC@\n	c = _stp_runtime_entryfn_get_context()@SC@\n	bptr = _stp_ctl_get_buffer(STP_OOB_DATA"
      "put_context:\n	_stp_runtime_entryfn_put_context(c)@SC@\n}"
      "put_context:\n	_stp_runtime_entryfn_put_context(c)@SC@\n	local_irq_restore(iotap_irq_flags)@SC@\n}")
list(APPEND applied "ctl_context_irqs_off")

list(JOIN applied "\n" applied_text)
file(WRITE "${DEST}/iotap-compat.txt" "${applied_text}\n")
