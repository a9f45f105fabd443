// --target ssh://'s parts that need no host: the address, the agent's facts, and what iotap
// says when the host (or this machine) cannot run the module.
#include "iotap/remote/ssh_target.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "iotap/util/error.h"
#include "iotap/util/temp_dir.h"

namespace iotap::remote {
namespace {

TEST(SshTarget, ParsesUserHostAndPort) {
  const SshHost full = parse_ssh_target("ssh://root@db7.example.com:2222");
  EXPECT_EQ(full.user, "root");
  EXPECT_EQ(full.host, "db7.example.com");
  EXPECT_EQ(full.port, 2222);
  EXPECT_EQ(full.name(), "root@db7.example.com:2222");
  const SshHost bare = parse_ssh_target("ssh://db7");
  EXPECT_EQ(bare.user, "");
  EXPECT_EQ(bare.port, 0);
  EXPECT_EQ(bare.name(), "db7");
  const SshHost v6 = parse_ssh_target("ssh://admin@[fe80::1]:22/");
  EXPECT_EQ(v6.host, "fe80::1");
  EXPECT_EQ(v6.port, 22);
}

std::string refusal(const std::string& text) {
  try {
    parse_ssh_target(text);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(SshTarget, RefusesWhatIsNotAnAddressSayingWhy) {
  EXPECT_NE(refusal("ssh://db7:0").find("the port must be a number from 1 to 65535, not '0'"),
            std::string::npos);
  EXPECT_NE(refusal("ssh://db7:22x").find("not '22x'"), std::string::npos);
  EXPECT_NE(refusal("ssh://db7:").find("not ''"), std::string::npos);
  EXPECT_NE(refusal("ssh://").find("no host"), std::string::npos);
  EXPECT_NE(refusal("ssh://@db7").find("the user before '@' is empty"), std::string::npos);
  EXPECT_NE(refusal("ssh://db7/var").find("a path after the host"), std::string::npos);
  // Nothing that ssh would take as an option, and nothing a shell would expand.
  EXPECT_NE(refusal("ssh://-oProxyCommand=x").find("has a '='"), std::string::npos);
  EXPECT_NE(refusal("ssh://-db7").find("cannot start with '-'"), std::string::npos);
  EXPECT_NE(refusal("ssh://db$7").find("has a '$'"), std::string::npos);
  EXPECT_NE(refusal("ssh://ro;ot@db7").find("the user name has a ';'"), std::string::npos);
  EXPECT_NE(refusal("ssh://[fe80::1").find("without its ']'"), std::string::npos);
  EXPECT_NE(refusal("sftp://db7").find("not an ssh:// address"), std::string::npos);
  EXPECT_NE(refusal("ssh://db7:99999").find("(the form is ssh://[USER@]HOST[:PORT]"),
            std::string::npos);
  // issue 27: a byte that is not UTF-8 is shown escaped, not printed alone; a whole character as
  // it is.
  EXPECT_EQ(refusal("ssh://r\xff@db7"),
            "--target 'ssh://r\\xff@db7': the user name has a '\\xff' (the form is "
            "ssh://[USER@]HOST[:PORT], e.g. ssh://root@db7 or ssh://db7:2222)");
  EXPECT_NE(refusal("ssh://r\xc3\xa9@db7").find("the user name has a '\xc3\xa9'"),
            std::string::npos);
  EXPECT_NE(refusal("ssh://db\x1b"
                    "7:2\r")
                .find("--target 'ssh://db\\x1b7:2\\r': the host name "
                      "has a '\\x1b'"),
            std::string::npos);
}

TEST(SshTarget, ReadsTheAgentsFacts) {
  const HostFacts facts = parse_host_facts(
      "fact release 6.1.0-56-cloud-amd64\nfact machine x86_64\nfact staprun /usr/bin/staprun\n"
      "fact privilege root\nfact user root\nfact pid_exe /usr/bin/app\n"
      "fact pid_exe_sha256 def\n"
      "fact program_sha256 abc\nsomething else\nfact unknown 1\n"
      "fact proc_module iotap_0123456789ab 487424 1 - Live 0x0000000000000000\n"
      "fact proc_module iotap_ba9876543210 487424 0 - Live 0x0000000000000000\n");
  EXPECT_EQ(facts.release, "6.1.0-56-cloud-amd64");
  EXPECT_EQ(facts.machine, "x86_64");
  EXPECT_EQ(facts.staprun, "/usr/bin/staprun");
  EXPECT_EQ(facts.privilege, "root");
  EXPECT_EQ(facts.pid_exe, "/usr/bin/app");
  EXPECT_EQ(facts.pid_exe_sha256, "def");
  EXPECT_EQ(facts.program_sha256, "abc");
  ASSERT_EQ(facts.run_modules.size(), 2U);
  EXPECT_EQ(facts.run_modules[0].name, "iotap_0123456789ab");
  EXPECT_EQ(facts.run_modules[0].users, 1U);
  EXPECT_EQ(facts.run_modules[1].name, "iotap_ba9876543210");
  EXPECT_EQ(facts.run_modules[1].users, 0U);
  const HostFacts missing =
      parse_host_facts("fact staprun -\nfact pid_exe -\nfact program_sha256 -\n");
  EXPECT_EQ(missing.staprun, "");
  EXPECT_EQ(missing.pid_exe, "");
  EXPECT_EQ(missing.program_sha256, "");
}

HostFacts ready_host() {
  HostFacts facts;
  facts.release = "6.1.0-56-cloud-amd64";
  facts.machine = "x86_64";
  facts.staprun = "/usr/bin/staprun";
  facts.privilege = "stapdev";
  facts.user = "alice";
  return facts;
}

TEST(SshTarget, SaysWhatAHostLacksAndWhatToDo) {
  const SshHost host = parse_ssh_target("ssh://alice@db7");
  EXPECT_EQ(host_problem(host, ready_host(), "x86_64"), "");
  HostFacts facts = ready_host();
  facts.staprun.clear();
  EXPECT_EQ(host_problem(host, facts, "x86_64"),
            "alice@db7 has no staprun: install SystemTap's runtime there (apt-get install "
            "systemtap-runtime; nothing else of SystemTap or iotap is needed on the host)");
  facts = ready_host();
  facts.privilege = "none";
  EXPECT_EQ(
      host_problem(host, facts, "x86_64"),
      "alice@db7: alice cannot load SystemTap modules there: log in as root (ssh://root@...), "
      "add alice to the stapdev group, or allow it passwordless sudo");
  facts = ready_host();
  facts.machine = "aarch64";
  EXPECT_NE(
      host_problem(host, facts, "x86_64").find("alice@db7 is aarch64 and this machine x86_64"),
      std::string::npos);
  facts = ready_host();
  facts.release.clear();
  EXPECT_NE(host_problem(host, facts, "x86_64").find("did not say the kernel release"),
            std::string::npos);
}

TEST(SshTarget, NeedsTheHostKernelsHeadersHereAndTheProgramThere) {
  const SshHost host = parse_ssh_target("ssh://db7");
  const TempDir modules("iotap-ssh-headers");
  EXPECT_EQ(kernel_headers_problem(host, "6.1.0-57-amd64", modules.path()),
            "db7 runs kernel 6.1.0-57-amd64, whose headers this machine lacks: stap compiles the "
            "module here, for that kernel (apt-get install linux-headers-6.1.0-57-amd64)");
  std::filesystem::create_directories(modules / "6.1.0-57-amd64/build");
  EXPECT_EQ(kernel_headers_problem(host, "6.1.0-57-amd64", modules.path()), "");

  HostFacts facts = ready_host();
  EXPECT_EQ(program_problem(host, facts, "/opt/app/bin/app"),
            "db7 has no executable /opt/app/bin/app: -c runs the program there, at the path it "
            "has on this machine (copy it there, or give the path it has on both)");
  facts.program_sha256 = "abc";
  EXPECT_EQ(program_problem(host, facts, "/opt/app/bin/app"), "");
}

}  // namespace
}  // namespace iotap::remote
