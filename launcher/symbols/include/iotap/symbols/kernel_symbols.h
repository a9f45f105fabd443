#pragma once
// A kernel's symbol table, read from its /proc/kallsyms, for naming kernel addresses on the host.
//
// Why not in the module: without the guest kernel's debuginfo, stap's own symbolization names
// guest addresses with the *host's* kernel symbols (wrong ones; docs/toolbox.md, "Kernel symbols").
// The target's own /proc/kallsyms is right by construction, KASLR included: it is read during the
// very boot whose addresses the probes report, and it lists the loaded modules' symbols too.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iotap::symbols {

struct Symbolized {
  std::string_view name;    // "submit_bio_noacct_nocheck"
  uint64_t offset = 0;      // from the symbol's start
  std::string_view module;  // "raid0"; empty for vmlinux
};

class KernelSymbols {
 public:
  // Keeps the text symbols (types t, T, w, W) of `kallsyms`, the format of /proc/kallsyms:
  // "ffffffffa9e10fe8 T __schedule" or "ffffffffc038c3d0 t raid0_map_submit_bio\t[raid0]".
  // Lines of /proc/modules ("raid0 24576 1 - Live 0xffffffffc038c000") may follow: they bound
  // each module, so an address in a module loaded later (the probe module itself) is not
  // taken for the end of the one before it. Other lines are skipped; all-zero addresses
  // (kptr_restrict) are refused.
  static KernelSymbols parse(std::string kallsyms);

  // The symbol whose code holds `address`, or nothing when it is below the first symbol, past a
  // module's last symbol by more than `kMaxSymbolSize`, or the table is empty.
  [[nodiscard]] std::optional<Symbolized> lookup(uint64_t address) const;

  // "name+0xoff [module]" (no brackets for vmlinux); the address in hex when it is unknown.
  [[nodiscard]] std::string describe(uint64_t address) const;

  // Every kernel address in `text` (a 0xffff... token of 16 hex digits) replaced by its
  // describe(): how `iotap run` shows backtrace() output. An address stap named itself
  // (print_backtrace()'s "ADDRESS : NAME+OFF/SIZE [MODULE]", or "ADDRESS [MODULE+OFF/SIZE]")
  // is left as it is: stap's line already says what describe() would.
  [[nodiscard]] std::string symbolize_text(std::string_view text) const;

  [[nodiscard]] size_t size() const { return entries_.size(); }
  [[nodiscard]] bool empty() const { return entries_.empty(); }

  // Larger than any kernel function: an address further than this past the last symbol of a
  // table is not taken for part of it.
  static constexpr uint64_t kMaxSymbolSize = 1 << 20;

 private:
  struct Entry {
    uint64_t address;
    std::string_view name;
    std::string_view module;
  };
  struct ModuleExtent {
    std::string_view name;
    uint64_t start;
    uint64_t end;
  };
  [[nodiscard]] const ModuleExtent* module_extent(std::string_view name) const;
  [[nodiscard]] static bool is_section_marker(std::string_view name);

  std::string text_;  // the names and module names point into it
  std::vector<Entry> entries_;
  std::vector<ModuleExtent> modules_;
};

// True when every address in `kallsyms` reads as zero: the table was read without the
// privilege to see addresses (kptr_restrict), and cannot name anything.
bool addresses_hidden(std::string_view kallsyms);

}  // namespace iotap::symbols
