// The provider file reader (provider/provider.h): the bundled files read, and each mistake a
// user can make is one line naming the file, the line and what was expected.
#include <gtest/gtest.h>

#include <random>

#include "iotap/provider/catalog.h"
#include "iotap/provider/provider.h"
#include "iotap/util/error.h"

namespace iotap::provider {
namespace {

const char* const kGood =
    "# a comment\n"
    "provider myapp\n"
    "about my app's reads\n"
    "program /opt/myapp/bin/myapp\n"
    "\n"
    "level batch batches\n"
    "  begin batch_start 2\n"
    "  end batch_done 2\n"
    "  pair thread\n"
    "  op -\n"
    "  text $arg1\n"
    "level read reads\n"
    "  begin request_start 3\n"
    "  end request_done 2\n"
    "  pair $arg1\n"
    "  op R\n"
    "  file 7\n"
    "  offset $arg2 * 512\n"
    "  size $arg3\n"
    "  result $arg2\n";

std::string error_of(const std::string& text) {
  try {
    (void)parse_provider(text, "my.provider");
  } catch (const UserError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

// kGood with line `line` (from 1) replaced by `with` ("" removes it).
std::string good_but(int line, const std::string& with) {
  std::string out;
  std::string text = kGood;
  int at = 1;
  for (size_t start = 0; start < text.size(); ++at) {
    const size_t end = text.find('\n', start);
    const std::string current = text.substr(start, end - start);
    out += (at == line ? with : current) + "\n";
    start = end + 1;
  }
  return out;
}

TEST(ProviderFile, ADeclarationReadsIntoLevels) {
  const Provider p = parse_provider(kGood, "my.provider");
  EXPECT_EQ(p.name, "myapp");
  EXPECT_EQ(p.about, "my app's reads");
  EXPECT_EQ(p.programs, std::vector<std::string>{"/opt/myapp/bin/myapp"});
  ASSERT_EQ(p.levels.size(), 2U);
  EXPECT_EQ(p.levels[0].begin.name, "batch_start");
  EXPECT_EQ(p.levels[0].begin.line, 7);
  EXPECT_FALSE(p.levels[0].pair_key.has_value());
  EXPECT_EQ(p.levels[0].op, '-');
  EXPECT_EQ(p.levels[0].text_arg, 1);
  EXPECT_EQ(p.levels[1].pair_key->to_text(), "$arg1");
  EXPECT_EQ(p.levels[1].offset.to_text(), "$arg2 * 512");
  EXPECT_EQ(p.levels[1].result.to_text(), "$arg2");
  EXPECT_EQ(p.levels[1].file.to_text(), "7");
  const auto names = level_names(p);
  ASSERT_EQ(names.size(), 2U);
  EXPECT_EQ(names[1].name, "read");
  EXPECT_EQ(names[1].plural, "reads");
}

TEST(ProviderFile, EachMistakeNamesTheFileTheLineAndWhatWasExpected) {
  EXPECT_EQ(error_of(good_but(2, "provder myapp")),
            "provider file my.provider:2: expected 'provider NAME' first, found 'provder'");
  EXPECT_EQ(error_of(good_but(18, "  ofset $arg2 * 512")),
            "provider file my.provider:18: unknown word 'ofset' in level read (expected begin, "
            "end, pair, op, file, offset, size, result or text)");
  EXPECT_EQ(error_of(good_but(13, "  begin request_start three")),
            "provider file my.provider:13: expected the number of arguments request_start takes "
            "(0 to 12), found 'three'");
  EXPECT_EQ(error_of(good_but(18, "  offset $arg4 * 512")),
            "provider file my.provider:18: offset reads $arg4 but request_start is declared with "
            "3 arguments");
  EXPECT_EQ(error_of(good_but(20, "  result $arg3")),
            "provider file my.provider:20: result reads $arg3 but request_done is declared with "
            "2 arguments");
  EXPECT_EQ(error_of(good_but(16, "  op X")),
            "provider file my.provider:16: expected op R (read), W (write), F (flush) or - (not "
            "I/O itself), found 'X'");
  EXPECT_EQ(error_of(good_but(18, "  offset $arg2 / 512")),
            "provider file my.provider:18: offset: expected + or * or the end, found '/'");
  EXPECT_EQ(error_of(good_but(9, "")),
            "provider file my.provider:6: level batch has no 'pair' line");
  EXPECT_EQ(error_of(good_but(10, "")),
            "provider file my.provider:6: level batch has no 'op' line (R, W, F or - for a "
            "request that is not I/O itself)");
  EXPECT_EQ(error_of(good_but(11, "  text $arg1 * 2")),
            "provider file my.provider:11: expected 'text $argN', found 3 words after 'text'");
  EXPECT_EQ(error_of(good_but(11, "  text 5")),
            "provider file my.provider:11: expected the one argument holding the text ($arg1), "
            "found '5'");
  EXPECT_EQ(error_of(good_but(12, "level batch again")),
            "provider file my.provider:12: a second level named 'batch'");
  EXPECT_EQ(error_of(good_but(4, "program bin/myapp")),
            "provider file my.provider:4: expected an absolute path without quotes or "
            "backslashes after 'program', found 'bin/myapp'");
  EXPECT_EQ(error_of(good_but(4, "program \"/x\"")),
            "provider file my.provider:4: expected an absolute path without quotes or "
            "backslashes after 'program', found '\"/x\"'");
  EXPECT_EQ(error_of(good_but(7, "  begin batch-start 2")),
            "provider file my.provider:7: a probe's name is letters, digits and _ (query__start), "
            "not 'batch-start'");
  EXPECT_EQ(error_of(good_but(15, "  pair $arg1\n  pair thread")),
            "provider file my.provider:16: a second 'pair' line in level read");
  EXPECT_EQ(error_of(good_but(2, "provider my-app")),
            "provider file my.provider:2: the provider's name is its probes' USDT provider, "
            "letters, digits and _, not 'my-app'");
  EXPECT_EQ(error_of("provider x\n"),
            "provider file my.provider: declares no level ('level NAME PLURAL' with its begin, "
            "end and pair lines)");
  EXPECT_EQ(error_of("# nothing\n"), "provider file my.provider: has no 'provider NAME' line");
  EXPECT_EQ(error_of(good_but(3, "about")),
            "provider file my.provider:3: expected 'about TEXT' (one line saying what the "
            "requests are)");
  EXPECT_EQ(error_of("provider x\nbegin a 1\n"),
            "provider file my.provider:2: unknown word 'begin' (expected provider, about, "
            "program, script or level; begin, end, pair, op, file, offset, size, result and text "
            "belong inside a level)");
  EXPECT_EQ(error_of("provider x\nscript ../../etc/passwd\n"),
            "provider file my.provider:2: expected a script of iotap's examples/ (NAME.stp) after "
            "'script', found '../../etc/passwd'");
}

// Whatever a file says, the reader answers with a provider or a UserError: a damaged file
// (each of 5000 copies of kGood with a few bytes changed, fixed seed) never crashes it.
TEST(ProviderFile, DamagedFilesAreProvidersOrOneLineErrors) {
  std::mt19937 random(29);
  const std::string alphabet = "$arg0123456789 *+\n\t#-_xRWF\"\\/";
  int refused = 0;
  for (int copy = 0; copy < 5000; ++copy) {
    std::string text = kGood;
    for (int change = 0; change < 3; ++change) {
      const size_t at = random() % text.size();
      if (random() % 2 == 0) {
        text.erase(at, 1 + random() % 4);
      } else {
        text[at] = alphabet[random() % alphabet.size()];
      }
    }
    try {
      (void)parse_provider(text, "my.provider");
    } catch (const UserError& error) {
      ++refused;
      EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << error.what();
    }
  }
  EXPECT_GT(refused, 1000);
}

TEST(ProviderFile, AProviderWithAScriptOfItsOwnNeedsNoOp) {
  const Provider p = parse_provider(
      "provider x\nscript events.stp\nlevel read reads\nbegin a 1\nend b 1\npair $arg1\n", "x");
  EXPECT_EQ(p.script, "events.stp");
}

TEST(ProviderFile, TheBundledProvidersRead) {
  const auto providers = bundled_providers(PROVIDERS_DIR);
  ASSERT_EQ(providers.size(), 3U);
  EXPECT_EQ(providers[0].name, "block_hasher");
  EXPECT_EQ(providers[0].script, "events.stp");
  EXPECT_EQ(providers[1].name, "io_replayer");
  EXPECT_EQ(providers[1].script, "replay_events.stp");
  const Provider& pg = providers[2];
  EXPECT_EQ(pg.name, "postgresql");
  EXPECT_TRUE(pg.script.empty());
  EXPECT_EQ(pg.programs, (std::vector<std::string>{"/usr/lib/postgresql/15/bin/postgres",
                                                   "/usr/pgsql-15/bin/postgres"}));
  std::vector<std::string> names;
  for (const auto& level : level_names(pg)) names.push_back(level.name + "/" + level.plural);
  EXPECT_EQ(names, (std::vector<std::string>{"query/queries", "buffer_read/buffer_reads",
                                             "smgr_read/smgr_reads", "smgr_write/smgr_writes"}));
  EXPECT_EQ(pg.levels[2].end.name, "smgr__md__read__done");
  EXPECT_EQ(pg.levels[2].end.args, 8);
}

TEST(ProviderFile, ANameOrAPathFindsAProvider) {
  EXPECT_EQ(find_provider("postgresql", PROVIDERS_DIR).name, "postgresql");
  EXPECT_EQ(find_provider(USDT_REQUESTS_PROVIDER, PROVIDERS_DIR).name, "usdt_requests");
  try {
    (void)find_provider("postgres", PROVIDERS_DIR);
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()),
              "--requests usdt:postgres: no provider of that name (iotap has block_hasher, "
              "io_replayer, postgresql; 'iotap providers' lists them); a provider file of your "
              "own is named by its path: usdt:./NAME.provider");
  }
}

}  // namespace
}  // namespace iotap::provider
