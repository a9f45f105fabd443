// The script written from a provider file (provider/script_generator.h): each level's begin and
// end probes print the agreed lines (docs/event-format.md), constants in the format and
// expressions as checked code, and the program's path quoted as a stap string.
#include "iotap/provider/script_generator.h"

#include <gtest/gtest.h>

#include "iotap/provider/catalog.h"

namespace iotap::provider {
namespace {

bool has(const std::string& script, const std::string& text) {
  return script.find(text) != std::string::npos;
}

TEST(ScriptGenerator, PostgresqlsLevelsPrintTheirLines) {
  const std::string script = generated_script(find_provider("postgresql", PROVIDERS_DIR),
                                              "/usr/lib/postgresql/15/bin/postgres");
  const std::string point = "probe process(\"/usr/lib/postgresql/15/bin/postgres\").mark(";
  EXPECT_TRUE(has(script, point + "\"query__start\")\n{\n\tsyscall_io_follow_thread(tid())\n"
                                  "\tprintf(\"PB %d %d %d %d 0 0 - 0 0 0\\n\", @iotap_event_head)\n"
                                  "\tprintf(\"PT %d %d %d %d 0 0 %s\\n\", @iotap_event_head, "
                                  "__iotap_request_text($arg1))\n}\n"))
      << script;
  EXPECT_TRUE(has(script, point +
                              "\"smgr__md__read__start\")\n{\n\tsyscall_io_follow_thread(tid())\n"
                              "\tprintf(\"PB %d %d %d %d 2 0 R %d %d 8192\\n\", "
                              "@iotap_event_head, ($arg5), ($arg2 * 8192))\n}\n"))
      << script;
  EXPECT_TRUE(has(script, point + "\"smgr__md__read__done\")\n{\n"
                                  "\tprintf(\"PE %d %d %d %d 2 0 %d\\n\", @iotap_event_head, "
                                  "($arg7))\n\tsyscall_io_unfollow_thread(tid())\n}\n"))
      << script;
  EXPECT_TRUE(has(script, point + "\"smgr__md__write__start\")")) << script;
  EXPECT_TRUE(has(script, "probe begin { println(\"iotap-events 2\") }")) << script;
  EXPECT_TRUE(has(script, "probe syscall_io.start\n")) << script;
  EXPECT_TRUE(has(script, "probe iotap_events.block {}")) << script;
  EXPECT_FALSE(has(script, "__iotap_begin_tid")) << "no level pairs by argument";
}

TEST(ScriptGenerator, PairingByAnArgumentKeysTheLinesAndFindsTheBeginsThread) {
  const std::string script = generated_script(read_provider(USDT_REQUESTS_PROVIDER), "__EXE__");
  EXPECT_TRUE(has(script, "global __iotap_begin_tid[16384]")) << script;
  EXPECT_TRUE(has(script, "\t__iotap_begin_tid[1, ($arg1)] = tid()\n")) << script;
  EXPECT_TRUE(has(script,
                  "\tprintf(\"PB %d %d %d %d 1 %d R 0 %d %d\\n\", @iotap_event_head, "
                  "($arg1), ($arg2), ($arg3))\n"))
      << script;
  EXPECT_TRUE(has(script,
                  "\tprintf(\"PE %d %d %d %d 1 %d %d\\n\", @iotap_event_head, ($arg1), "
                  "($arg2))\n\tif ([1, ($arg1)] in __iotap_begin_tid) {\n"
                  "\t\tsyscall_io_unfollow_thread(__iotap_begin_tid[1, ($arg1)])\n"))
      << script;
  // iotap run's marker, filled in with the -c program.
  EXPECT_TRUE(has(script, "probe process(\"__EXE__\").mark(\"batch_start\")")) << script;
}

TEST(ScriptGenerator, TheProgramsPathIsQuotedAsAString) {
  const std::string script =
      generated_script(read_provider(USDT_REQUESTS_PROVIDER), "/opt/my \"app\"\\bin");
  EXPECT_TRUE(has(script, "process(\"/opt/my \\\"app\\\"\\\\bin\").mark(")) << script;
}

}  // namespace
}  // namespace iotap::provider
