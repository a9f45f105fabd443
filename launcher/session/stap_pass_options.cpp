// iotap run's stap options on the command line: passed on, counted (-v), or refused with why.
#include "iotap/session/stap_pass_options.h"

#include <boost/program_options.hpp>

#include "iotap/session/number_option.h"
#include "iotap/util/error.h"

namespace iotap::session {

namespace po = boost::program_options;

namespace {

constexpr NumberOption kExitAfterOption{"-T", "a positive number of seconds", "seconds",
                                        UINT32_MAX};

// A switch that counts how often it is given (-v -v, -vv), as stap's -v does: Boost's own
// switches refuse a second occurrence.
class CountedSwitch : public po::value_semantic_codecvt_helper<char> {
 public:
  explicit CountedSwitch(unsigned& count) : count_(count) {}
  [[nodiscard]] std::string name() const override { return ""; }
  [[nodiscard]] unsigned min_tokens() const override { return 0; }
  [[nodiscard]] unsigned max_tokens() const override { return 0; }
  [[nodiscard]] bool is_composing() const override { return true; }
  [[nodiscard]] bool is_required() const override { return false; }
  bool apply_default(boost::any& /*value_store*/) const override { return false; }
  void notify(const boost::any& /*value_store*/) const override {}

 protected:
  void xparse(boost::any& value_store,
              const std::vector<std::string>& /*new_tokens*/) const override {
    ++count_;
    value_store = count_;  // marks the option as given
  }

 private:
  unsigned& count_;
};

// Checks each word with `check` and appends it to `into`.
po::typed_value<std::vector<std::string>>* checked_words(std::vector<std::string>& into,
                                                         std::string (*check)(std::string_view)) {
  return po::value<std::vector<std::string>>()->composing()->notifier(
      [&into, check](const std::vector<std::string>& words) {
        for (const auto& word : words) into.push_back(check(word));
      });
}

// An option iotap sets itself: refused, saying why.
po::typed_value<std::string>* refused(std::string why) {
  return po::value<std::string>()->notifier(
      [why = std::move(why)](const std::string& /*value*/) { throw UserError(why); });
}

void add_refused(po::options_description& hidden) {
  hidden.add_options()(",p", refused("-p is iotap's: it compiles (pass 4) and runs the module "
                                     "itself; to see stap's passes, use -v"))(
      ",m", refused("-m is iotap's: it names the module it compiles"))(
      ",r", refused("-r is iotap's: the kernel is --target's (vm: the guest's, local: this one)"))(
      ",R", refused("-R is iotap's: it picks the SystemTap runtime that builds for --target"))(
      ",I", refused("-I is iotap's: it passes the bundled tapsets; put your own functions in the "
                    "script, or @include a file next to it"))(
      ",e", refused("-e is not taken: iotap run runs a script file (iotap run SCRIPT.stp)"))(
      ",l", refused("-l lists probe points and runs nothing: run stap -l itself, where "
                    "the kernel's debuginfo is"))(
      ",L", refused("-L lists probe points and runs nothing: run stap -L itself, where "
                    "the kernel's debuginfo is"))(
      "runtime", refused("--runtime is iotap's: it builds a kernel module (bpf and dyninst do not "
                         "run in the guest)"));
  // Switches: a value would swallow the script's name.
  const auto refused_switch = [](std::string why) {
    return po::bool_switch()->notifier([why = std::move(why)](bool given) {
      if (given) throw UserError(why);
    });
  };
  hidden.add_options()(",F", refused_switch("-F (flight recorder) is not taken: iotap streams the "
                                            "script's output while it runs"))(
      ",b", refused_switch("-b (bulk mode) is not taken: iotap reads the script's output as one "
                           "stream"));
}

}  // namespace

void add_stap_pass_options(po::options_description& visible, po::options_description& hidden,
                           stap::StapOptions& options) {
  visible.add_options()(
      ",D", checked_words(options.defines, stap::check_define)->value_name("NAME[=VALUE]"),
      "stap -D: a C macro for the module, e.g. -D MAXACTION=10000 (repeatable)")(
      ",G", checked_words(options.globals, stap::check_global)->value_name("NAME=VALUE"),
      "stap -G: set the script's global NAME when the module loads (repeatable)")(
      "guru,g", po::bool_switch(&options.guru), "stap -g: guru mode (embedded C, kernel writes)")(
      ",d", checked_words(options.unwind_modules, stap::check_unwind_module)->value_name("MODULE"),
      "stap -d: symbols and unwind data of a kernel module (a name, or a file) for backtraces; "
      "with --target vm, the guest kernel's module (repeatable)")(
      "all-modules", po::bool_switch(&options.all_modules),
      "stap --all-modules: symbols and unwind data of all loaded modules, for backtraces (with "
      "--target vm: the modules the guest loads)")(
      "suppress-time-limits", po::bool_switch(&options.suppress_time_limits),
      "stap --suppress-time-limits: lift MAXACTION and the overload limits (needs -g)")(
      ",T",
      positive_number(
          kExitAfterOption,
          [&](uint64_t seconds) { options.exit_after_seconds = static_cast<unsigned>(seconds); })
          ->value_name("SECONDS"),
      "stap -T: the script exits SECONDS after it starts (end probes run); --timeout also "
      "counts the guest's boot")(
      "verbose,v", new CountedSwitch(options.verbosity),
      "stap -v: show stap's passes and staprun's messages (repeatable: -vv)");
  add_refused(hidden);
}

}  // namespace iotap::session
