// The changes iotap makes to SystemTap 4.8's runtime (runtime_adaptation.h), each with why and,
// where upstream SystemTap made the same fix, the commit it mirrors. A change for a kernel API is
// applied when the kernel's headers show that API, never by version number.
#include "runtime_changes.h"

#include <utility>

namespace iotap::stap {
namespace {

// A kprobe on a module's function: kernel symbols are not walked for it (see below).
constexpr const char* kModuleProbe =
    R"((skp->module && skp->module[0] && strcmp(skp->module, "kernel") != 0))";

std::string module_probe(const char* before, const char* after) {
  return std::string(before) + kModuleProbe + after;
}

// The control channel's three context holders (see ctl_context_irqs_off).
constexpr const char* kSave = "\tlocal_irq_save(iotap_irq_flags);\n";
constexpr const char* kRestore = "\tlocal_irq_restore(iotap_irq_flags);\n";

// Stable 6.1 kernels from 6.1.0-56 on (and 6.11+) renamed task_work_cancel(task, func) to
// task_work_cancel_func(task, func); task_work_cancel now takes a callback_head and returns
// bool. The runtime resolves the function through kallsyms, so the type and the symbol name
// come from task_work_cancel_func. Upstream's stp_task_work.c handles the same kernel commit
// (68cbd415dd4b "task_work: s/task_work_cancel()/task_work_cancel_func()/") with an autoconf
// test, STAPCONF_TASK_WORK_CANCEL_FUNC; here the header decides.
RuntimeChange task_work_cancel_func() {
  return {"task_work_cancel_func",
          "upstream: STAPCONF_TASK_WORK_CANCEL_FUNC, for kernel commit 68cbd415dd4b",
          {{"linux/task_work.h", "task_work_cancel_func"}},
          {{"stp_task_work.c", "typeof(&task_work_cancel)", "typeof(&task_work_cancel_func)"},
           {"stp_task_work.c", R"(kallsyms_lookup_name("task_work_cancel"))",
            R"(kallsyms_lookup_name("task_work_cancel_func"))"}}};
}

// iotap's own (4.8's relay transport): __stp_print_flush() needs a message's header to fit
// whole in the current sub-buffer, but _stp_data_write_reserve() switches sub-buffers only
// once the current one is full, so a flush landing in a sub-buffer's last bytes was dropped
// as a "transport failure" (10 of ~1000 event lines a guest run, at -s 16 and -s 64 alike).
// Switching when fewer than 64 bytes are left wastes at most 64 bytes of each 4 KiB.
RuntimeChange relay_subbuf_tail() {
  return {"relay_subbuf_tail",
          "iotap's own: 4.8's relay transport drops a flush at a sub-buffer's end",
          {},
          {{"transport/relay_v2.c",
            "\tif (buf->offset >= buf->chan->subbuf_size) {\n"
            "\t\tsize_request = __stp_relay_switch_subbuf(buf, size_request);",
            "\tif (buf->offset >= buf->chan->subbuf_size || buf->chan->subbuf_size - buf->offset < "
            "64) {\n"
            "\t\tsize_request = __stp_relay_switch_subbuf(buf, size_request);"}}};
}

// Linux 6.0+: kprobe.module("M").function("F") never fired. The runtime turns a symbol_name
// probe into an address by walking kallsyms_on_each_symbol(), which since 6.0 walks vmlinux
// only, and gives up silently when it finds nothing. A module probe not found there goes to
// register_kprobe() by name ("raid0:raid0_make_request"), which resolves module symbols. The
// else-if line is the same in the kprobe and kretprobe functions (u.kp and u.krp.kp are the
// same struct kprobe). Upstream reworked the lookup for 6.0 otherwise (module_kallsyms_on_
// each_symbol, 5.0); this is the smallest change that keeps 4.8's structure.
RuntimeChange module_probes_by_name() {
  return {"module_probes_by_name",
          "iotap's own, for Linux 6.0's kallsyms_on_each_symbol (upstream: 5.0's module walk)",
          {},
          {{"linux/kprobes.c", "if (USE_KALLSYMS_ON_EACH_SYMBOL && kp->addr == 0)\n",
            module_probe("if (USE_KALLSYMS_ON_EACH_SYMBOL && kp->addr == 0 && !", ")\n")},
           {"linux/kprobes.c", "if (USE_KALLSYMS_ON_EACH_SYMBOL && krp->kp.addr == 0)\n",
            module_probe("if (USE_KALLSYMS_ON_EACH_SYMBOL && krp->kp.addr == 0 && !", ")\n")},
           {"linux/kprobes.c", "else if (!USE_KALLSYMS_ON_EACH_SYMBOL) {",
            module_probe("else if (!USE_KALLSYMS_ON_EACH_SYMBOL || (",
                         " && skp->kprobe->u.kp.addr == 0)) {")}}};
}

// iotap's own (4.8's control channel): _stp_ctl_work_callback (a timer, every few jiffies),
// _stp_ctl_send and _stp_ctl_log_werr hold the CPU's probe context to keep probes out of
// their locks, with interrupts on; a probe hit from an interrupt in that window (a disk's
// completion) found the context busy and was skipped ("skipped probes: 2" about one guest run
// in eight of 1280 null_blk requests, under INTERRUPTIBLE=0). With interrupts off while the
// context is held, the interrupt waits and its probe runs.
RuntimeChange ctl_context_irqs_off() {
  const std::string put = "_stp_runtime_entryfn_put_context(c);\n";
  return {
      "ctl_context_irqs_off",
      "iotap's own: 4.8's control channel skips interrupts' probe hits",
      {},
      {{"transport/transport.c",
        "\tunsigned long flags;\n\tstruct context* __restrict__ c = NULL;\n\n"
        "\t/* Prevent probe reentrancy while grabbing probe-used locks.  */\n"
        "\tc = _stp_runtime_entryfn_get_context();",
        std::string("\tunsigned long flags, iotap_irq_flags;\n\tstruct context* __restrict__ c "
                    "= NULL;\n\n\t/* Prevent probe reentrancy while grabbing probe-used locks.  "
                    "*/\n") +
            kSave + "\tc = _stp_runtime_entryfn_get_context();"},
       {"transport/transport.c",
        "\tstp_spin_unlock_irqrestore(&_stp_ctl_ready_lock, flags);\n\n\t" + put + "\n\tif (do_io)",
        "\tstp_spin_unlock_irqrestore(&_stp_ctl_ready_lock, flags);\n\n\t" + put + kRestore +
            "\n\tif (do_io)"},
       {"transport/control.c",
        "\tstruct _stp_buffer *bptr;\n\tunsigned long flags;\n\tunsigned hlen;",
        "\tstruct _stp_buffer *bptr;\n\tunsigned long flags, iotap_irq_flags;\n\tunsigned hlen;"},
       {"transport/control.c",
        "\tc = _stp_runtime_entryfn_get_context();\n\n\t/* get a buffer from the free pool */",
        std::string(kSave) + "\tc = _stp_runtime_entryfn_get_context();\n\n\t/* get a buffer from "
                             "the free pool */"},
       {"transport/control.c", "\t\t" + put + "\t\treturn -ENOMEM;",
        "\t\t" + put + "\t" + kRestore + "\t\treturn -ENOMEM;"},
       {"transport/control.c", "\t" + put + "\n\t/* It would be nice",
        "\t" + put + kRestore + "\n\t/* It would be nice"},
       {"transport/control.c",
        "\tstruct _stp_buffer *bptr;\n\tunsigned long flags;\n\n"
        "\tc = _stp_runtime_entryfn_get_context();\n\tbptr = _stp_ctl_get_buffer(STP_OOB_DATA",
        std::string("\tstruct _stp_buffer *bptr;\n\tunsigned long flags, iotap_irq_flags;\n\n") +
            kSave +
            "\tc = _stp_runtime_entryfn_get_context();\n\tbptr = "
            "_stp_ctl_get_buffer(STP_OOB_DATA"},
       {"transport/control.c", "put_context:\n\t" + put + "}",
        "put_context:\n\t" + put + kRestore + "}"}}};
}

std::vector<RuntimeChange> make_changes() {
  std::vector<RuntimeChange> changes{task_work_cancel_func(), relay_subbuf_tail(),
                                     module_probes_by_name(), ctl_context_irqs_off()};
  for (RuntimeChange& change : changes_for_newer_kernels()) changes.push_back(std::move(change));
  return changes;
}

}  // namespace

const std::vector<RuntimeChange>& runtime_changes() {
  static const std::vector<RuntimeChange> changes = make_changes();
  return changes;
}

const std::vector<RuntimeChange>& tapset_changes() {
  static const std::vector<RuntimeChange> changes = tapset_changes_for_newer_kernels();
  return changes;
}

}  // namespace iotap::stap
