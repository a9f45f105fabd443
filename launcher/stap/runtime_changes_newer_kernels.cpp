// The changes SystemTap 4.8's runtime needs for kernels newer than it knows (6.4 to 6.12, found
// by compiling every probe kind iotap uses against Debian 12's 6.12 headers; docs/kernels.md).
// Each is applied when the kernel's headers (or kbuild's always-on warnings) show the API it
// answers, so a 6.1 point release that backported one gets that one alone; each names the
// upstream SystemTap commit that made the same fix, which upstream mostly decided by version.
#include "runtime_changes.h"

namespace iotap::stap {
namespace {

// 6.10: vzalloc, vmalloc_node and vzalloc_node became macros (memory allocation profiling), so
// Module.symvers has no export for them, STAPCONF_VZALLOC and the others go unset, and the
// runtime's own fallback definitions collide with the macros. Upstream: 0c437c7e2d02 "Address
// changes in Linux 6.10 /include/linux/vmalloc.h".
RuntimeChange vmalloc_macros() {
  return {"vmalloc_macros",
          "upstream 0c437c7e2d02",
          {{"linux/vmalloc.h", "#define vzalloc("}},
          {{"linux/alloc.c", "#ifndef STAPCONF_VZALLOC\n",
            "#if !defined(STAPCONF_VZALLOC) && !defined(vzalloc)\n"},
           {"linux/alloc.c", "#ifndef STAPCONF_VMALLOC_NODE\n",
            "#if !defined(STAPCONF_VMALLOC_NODE) && !defined(vmalloc_node)\n"},
           {"linux/alloc.c", "#ifndef STAPCONF_VZALLOC_NODE\n",
            "#if !defined(STAPCONF_VZALLOC_NODE) && !defined(vzalloc_node)\n"}}};
}

// 6.12 moved asm/unaligned.h to linux/unaligned.h. Upstream: c5774e18b724 "Address the Linux
// 6.12 move of the unaligned.h include file".
RuntimeChange linux_unaligned_h() {
  return {"linux_unaligned_h",
          "upstream c5774e18b724",
          {{"linux/unaligned.h", "get_unaligned"}},
          {{"sym.c", "#include <asm/unaligned.h>\n", "#include <linux/unaligned.h>\n"}}};
}

// 6.8 removed strlcpy(); the runtime (and tapsets' embedded C) still call it. Emulated with
// strscpy() as upstream did: 60c3d8b1c90c "PR31373: Deal with the removal of strlcpy() from
// linux 6.8".
RuntimeChange strlcpy_removed() {
  const std::string anchor =
      "// PR26811: Replace some declarations after set_fs() removal in kernel 5.10+.\n";
  return {"strlcpy_removed",
          "upstream 60c3d8b1c90c",
          {{"linux/string.h", "strlcpy", true}},
          {{"linux/runtime.h", anchor,
            "// PR31373: the kernel removed strlcpy; emulate it with strscpy\n"
            "#define strlcpy(dest, src, count)  ({\t\t\\\n"
            "  size_t size=(count);\t\t\t\t\\\n"
            "  ssize_t retval = strscpy((dest), (src), size);\\\n"
            "  if (retval<0)\t\t\t\t\t\\\n"
            "    retval = size; /* was truncated */\t\t\\\n"
            "  else\t\t\t\t\t\t\\\n"
            "    retval++; /* count the NULL */\t\t\\\n"
            "  retval;\t\t\t\t\t\\\n"
            "})\n\n" +
                anchor}}};
}

// 6.5: get_user_pages_remote() lost its vmas argument; get_user_page_vma_remote() gives the page
// and its vma. Upstream: e891a37e3663 "Adjust runtime _access_process_vm_ to work with linux
// 6.5" (the same call, behind an autoconf test).
RuntimeChange get_user_page_vma_remote() {
  const std::string old_start =
      "#ifdef STAPCONF_GET_USER_PAGES_REMOTE\n#if defined(STAPCONF_GET_USER_PAGES_REMOTE_NOTASK_"
      "STRUCT)\n";
  return {"get_user_page_vma_remote",
          "upstream e891a37e3663",
          {{"linux/mm.h", "get_user_page_vma_remote("}},
          {{"linux/access_process_vm.h", old_start,
            "#ifdef STAPCONF_GET_USER_PAGES_REMOTE\n"
            "#if 1 /* iotap: linux/mm.h has get_user_page_vma_remote() */\n"
            "      unsigned int flags = FOLL_FORCE;\n"
            "      if (write)\n"
            "\t  flags |= FOLL_WRITE;\n"
            "      page = get_user_page_vma_remote (mm, addr, flags, &vma);\n"
            "      ret = !IS_ERR_OR_NULL(page);\n"
            "#elif defined(STAPCONF_GET_USER_PAGES_REMOTE_NOTASK_STRUCT)\n"}}};
}

// 6.4: kallsyms_on_each_symbol()'s callback lost its struct module * (the walk has covered
// vmlinux only since 6.0; module probes go by name, module_probes_by_name). Upstream:
// 33fae2d0107f "PR30415: conflicting types for 'kallsyms_on_each_symbol'".
RuntimeChange kallsyms_callback_without_module() {
  return {"kallsyms_callback_without_module",
          "upstream 33fae2d0107f",
          {{"linux/kallsyms.h",
            "int kallsyms_on_each_symbol(int (*fn)(void *, const char *, unsigned long),"}},
          {{"sym.c",
            "int kallsyms_on_each_symbol(int (*fn)(void *, const char *, struct module *,\n"
            "\t\t\t\t      unsigned long),\n",
            "int kallsyms_on_each_symbol(int (*fn)(void *, const char *,\n"
            "\t\t\t\t      unsigned long),\n"},
           {"linux/kprobes.c",
            "static int\nstapkp_symbol_callback(void *data, const char *name,\n"
            "\t\t       struct module *mod, unsigned long addr)\n{\n",
            "static int\nstapkp_symbol_callback(void *data, const char *name,\n"
            "\t\t       unsigned long addr)\n{\n"
            "   struct module *mod = NULL; /* iotap: the kernel walks vmlinux only */\n"}}};
}

// 6.6 removed do_each_thread()/while_each_thread(); for_each_process_thread() (3.14+) walks
// the same threads. Upstream: 21bb398cb78b "Eliminate use of do_each_thread() macro".
RuntimeChange for_each_process_thread() {
  return {"for_each_process_thread",
          "upstream 21bb398cb78b",
          {{"linux/sched/signal.h", "do_each_thread", true},
           {"linux/sched/signal.h", "#define for_each_process_thread"}},
          {{"linux/namespaces.h", "  do_each_thread(grp, tsk) {\n",
            "  for_each_process_thread(grp, tsk) {\n"},
           {"linux/namespaces.h", "  } while_each_thread(grp, tsk);\n", "  }\n"},
           {"linux/task_finder2.c", "\tdo_each_thread(grp, tsk) {\n",
            "\tfor_each_process_thread(grp, tsk) {\n"},
           {"linux/task_finder2.c", "\t} while_each_thread(grp, tsk);\n", "\t}\n"}}};
}

// 6.4: struct module's core_layout became mem[MOD_MEM_NUM_TYPES]: the module's own text size
// (its unwinder's bounds, for backtraces), the size -D STP_MAXMEMORY counts, and the size line
// of stap's startup message. Upstream: c893e0eaa4de "Support newer kernels with struct
// module_memory".
RuntimeChange module_memory() {
  return {
      "module_memory",
      "upstream c893e0eaa4de",
      {{"linux/module.h", "struct module_memory mem["}},
      {{"linux/print.c",
        "#else\n#ifndef STAPCONF_GRSECURITY\n\t       (unsigned long) THIS_MODULE->module_core,\n",
        "#elif 1 /* iotap: linux/module.h has struct module_memory */\n"
        "\t       (unsigned long) THIS_MODULE->mem[MOD_TEXT].base,\n"
        "\t       (unsigned long) (THIS_MODULE->mem[MOD_DATA].size)/1024,\n"
        "\t       (unsigned long) (THIS_MODULE->mem[MOD_TEXT].size)/1024,\n"
        "#else\n#ifndef STAPCONF_GRSECURITY\n\t       (unsigned long) THIS_MODULE->module_core,\n"},
       {"transport/symbols.c",
        "#ifdef STAPCONF_MODULE_LAYOUT\n\t\t\t_stp_module_self.sections[1].size = "
        "mod->core_layout.text_size;\n",
        "#if 1 /* iotap: linux/module.h has struct module_memory */\n\t\t\t"
        "_stp_module_self.sections[1].size = mod->mem[MOD_TEXT].size;\n"
        "#elif defined(STAPCONF_MODULE_LAYOUT)\n\t\t\t_stp_module_self.sections[1].size = "
        "mod->core_layout.text_size;\n"},
       {"linux/alloc.c",
        "#ifdef STAPCONF_MODULE_LAYOUT\n#define _STP_MODULE_CORE_SIZE "
        "(THIS_MODULE->core_layout.size)\n",
        "#if 1 /* iotap: linux/module.h has struct module_memory */\n#define "
        "_STP_MODULE_CORE_SIZE (THIS_MODULE->mem[MOD_TEXT].size + "
        "THIS_MODULE->mem[MOD_DATA].size + THIS_MODULE->mem[MOD_RODATA].size + "
        "THIS_MODULE->mem[MOD_RO_AFTER_INIT].size)\n"
        "#elif defined(STAPCONF_MODULE_LAYOUT)\n#define _STP_MODULE_CORE_SIZE "
        "(THIS_MODULE->core_layout.size)\n"}}};
}

// 6.6+: flush_scheduled_work() always calls __warn_flushing_systemwide_wq(), a build warning
// (an error under -Werror). The runtime's module_refresher_work is queued by schedule_work() on
// the queue the macro flushes, so flushing that queue directly keeps 4.8's behaviour. Upstream
// (ca71442b9 "Eliminate use of kernel's flush_scheduled_work() in systemtap modules") moved to a
// private workqueue, which needs its translator too.
RuntimeChange flush_system_percpu_wq() {
  return {"flush_system_percpu_wq",
          "upstream ca71442b9 (differently: a private workqueue)",
          {{"linux/workqueue.h", "__flush_workqueue(system_percpu_wq);"}},
          {{"linux/runtime.h", "  flush_scheduled_work();\n",
            "  __flush_workqueue(system_percpu_wq); /* iotap: flush_scheduled_work() without its "
            "build warning */\n"}}};
}

// 6.x: linux/sched/numa_balancing.h names struct folio, which the autoconf probe for
// utrace-via-tracepoints did not declare, so the probe failed and the task finder (and with it
// every process probe) was built without tracepoints. Upstream: 39b3819b6953 "PR31039: Make
// autoconf-utrace-via-tracepoints.c work with struct folio".
RuntimeChange utrace_probe_includes_mm() {
  return {"utrace_probe_includes_mm",
          "upstream 39b3819b6953",
          {{"linux/sched/numa_balancing.h", "struct folio"}},
          {{"linux/autoconf-utrace-via-tracepoints.c", "#include <trace/events/sched.h>\n",
            "#include <linux/mm.h>\n#include <trace/events/sched.h>\n"}}};
}

// 6.12: uprobe_register() returns the struct uprobe * and takes a ref_ctr_offset; unregistering
// takes that pointer (uprobe_unregister_nosync, then uprobe_unregister_sync), and only the new
// names are exported (4.8 finds the unregister function through kallsyms). The uprobe is kept
// per instance, as there is one registration per instance. Upstream: b1d109410c27 "PR32194: Use
// v6.12 versions of uprobe register and unregister functions".
RuntimeChange uprobe_register_returns_uprobe() {
  return {
      "uprobe_register_returns_uprobe",
      "upstream b1d109410c27",
      {{"linux/uprobes.h", "uprobe_unregister_nosync(struct uprobe *uprobe"}},
      {{"linux/uprobes-inode.c", "typedef typeof(&uprobe_unregister) uprobe_unregister_fn;\n",
        "typedef typeof(&uprobe_unregister_nosync) uprobe_unregister_fn;\n"},
       {"linux/uprobes-inode.c",
        "  struct uprobe_consumer kconsumer; // the kernel-side struct for uprobe callbacks "
        "etc.\n",
        "  struct uprobe_consumer kconsumer; // the kernel-side struct for uprobe callbacks "
        "etc.\n  struct uprobe *uprobe;            // iotap: what uprobe_register() returned\n"},
       {"linux/uprobes-inode.c",
        "    ret = uprobe_register (inst->inode, c->offset, &inst->kconsumer);\n",
        "    {\n      inst->uprobe = uprobe_register (inst->inode, c->offset, 0, "
        "&inst->kconsumer);\n      ret = IS_ERR_OR_NULL(inst->uprobe) ? (inst->uprobe ? "
        "(int) PTR_ERR(inst->uprobe) : -EINVAL) : 0;\n    }\n"},
       {"linux/uprobes-inode.c",
        "  (void) uprobe_unregister (inst->inode, c->offset, &inst->kconsumer);\n",
        "  uprobe_unregister (inst->uprobe, &inst->kconsumer);\n  uprobe_unregister_sync ();\n"},
       {"transport/transport.c",
        "kallsyms_uprobe_unregister = (void*) kallsyms_lookup_name (\"uprobe_unregister\");\n",
        "kallsyms_uprobe_unregister = (void*) kallsyms_lookup_name "
        "(\"uprobe_unregister_nosync\");\n"}}};
}

// kbuild's -Wextra, on by default from 6.8, brings -Wenum-conversion: task_work_add()'s mode is
// an enum, and 4.8 passes `true`. TWA_RESUME is the same value. Upstream: 1ed860193216 "Use
// TWA_RESUME in the runtime calls to task_work_add".
RuntimeChange task_work_add_twa_resume() {
  RuntimeChange change{"task_work_add_twa_resume",
                       "upstream 1ed860193216",
                       {{"linux/task_work.h", "TWA_RESUME"}},
                       {{"stp_task_work.c", "\trc = task_work_add(task, twork, true);\n",
                         "\trc = task_work_add(task, twork, TWA_RESUME);\n"}}};
  change.when_kbuild_warns = {"-Wextra"};
  return change;
}

// kbuild's default -Wextra brings -Wempty-body: `if (x) dbug_...(...);` with the macros empty.
// Upstream: da72d043 (debug.h) and 1fd6fb4d7 (uprobes-inode.c) "Avoid -Werror=empty-body".
RuntimeChange empty_bodies() {
  RuntimeChange change{"empty_bodies",
                       "upstream da72d043, 1fd6fb4d7",
                       {},
                       {{"linux/debug.h", "args...) ;\n", "args...) do { } while (0)\n"},
                        {"linux/uprobes-inode.c", "  else\n    ; // already unlocked\n",
                         "  else\n    {}; // already unlocked\n"}}};
  change.when_kbuild_warns = {"-Wextra"};
  return change;
}

// SystemTap's dev.stp, bdevname(): 6.10 folded block_device's bd_partno into __bd_flags, and
// bd_part went in 5.11. 4.8 reads bd_partno when it is there and else bd_part, unguarded, so on
// 6.10+ every script that uses bdevname() (ioblock's devname, the io examples) fails to compile.
// Guarded, its last rule (the minor number less the disk's first) gives the partition on any
// kernel. Upstream (497f7717f "Update dev.stp tapset for Linux 6.10", then ea6ec6da3) calls the
// kernel's bdev_partno() from embedded C; the guard alone keeps the tapset free of it.
RuntimeChange dev_stp_without_bd_partno() {
  return {"dev_stp_without_bd_partno",
          "upstream 497f7717f (differently: the kernel's bdev_partno())",
          {{"linux/blk_types.h", "bd_partno", true}},
          {{"linux/dev.stp", "\telse if (bdev->bd_part)\n",
            "\telse if (@defined(@cast(bdev, \"block_device\", \"kernel\")->bd_part) && "
            "bdev->bd_part)\n"}}};
}

// SystemTap's aux_syscalls.stp takes the wait options (WNOHANG, P_ALL, ...) and shmget's flags
// (SHM_HUGETLB, ...) from linux/wait.h and linux/shm.h, which stopped including their uapi
// halves (6.8 for shm.h): every script that pulls in the syscall tapsets' decoders fails pass 4.
// Upstream: 13673ddcc "Update the aux_syscall.stp tapset to directly include
// <uapi/linux/wait.h>" and 8a9097d90 "Get SHM_* flag defines from the appropriate include file".
RuntimeChange aux_syscalls_uapi_wait_h() {
  return {"aux_syscalls_uapi_wait_h",
          "upstream 13673ddcc",
          {{"linux/wait.h", "uapi/linux/wait.h", true}},
          {{"linux/aux_syscalls.stp", "#include <linux/wait.h>\n",
            "#include <linux/wait.h>\n#include <uapi/linux/wait.h>\n"}}};
}

RuntimeChange aux_syscalls_uapi_shm_h() {
  return {"aux_syscalls_uapi_shm_h",
          "upstream 8a9097d90",
          {{"linux/shm.h", "uapi/linux/shm.h", true}},
          {{"linux/aux_syscalls.stp", "#include <linux/shm.h>\n",
            "#include <linux/shm.h>\n#include <uapi/linux/shm.h>\n"}}};
}

}  // namespace

std::vector<RuntimeChange> tapset_changes_for_newer_kernels() {
  return {dev_stp_without_bd_partno(), aux_syscalls_uapi_wait_h(), aux_syscalls_uapi_shm_h()};
}

std::vector<RuntimeChange> changes_for_newer_kernels() {
  return {vmalloc_macros(),
          linux_unaligned_h(),
          strlcpy_removed(),
          get_user_page_vma_remote(),
          kallsyms_callback_without_module(),
          for_each_process_thread(),
          module_memory(),
          flush_system_percpu_wq(),
          utrace_probe_includes_mm(),
          uprobe_register_returns_uprobe(),
          task_work_add_twa_resume(),
          empty_bodies()};
}

}  // namespace iotap::stap
