// A machine for the --target ssh:// tests, on this one: a qemu guest with its own md/dm stack
// (built from --stack by the guest's init, as for --target vm), user networking with its port
// 22 forwarded from 127.0.0.1 only, and Debian's dropbear as its ssh server, taking the one key
// the test made. iotap reaches it only through ssh, as it would a server.
//
//   ssh_test_host --stack SPEC --key KEY.pub [--without-staprun] [--cpus N]
//                 [--program PATH]... [--file PATH]... [--postgres ROWS]
//
// --program and --file put more of this machine in the guest at the same paths (a program with
// its libraries; a file, or a directory's files): iotap itself, for a --target local run there.
// --postgres: PostgreSQL 15 running there before the ssh server starts, as `iotap --postgres`
// sets it up in a guest (guest/postgres.sh: ext4 on the stack's top device, a data set of ROWS
// rows, the page cache dropped), for the tests that attach to a server already running.
//
// Prints "ready PORT" on stdout once the ssh server answers on 127.0.0.1:PORT, then runs until
// SIGTERM or SIGINT (the guest powers off: nothing is left) or until the guest ends. The
// guest's console and the server's messages go to stderr.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "iotap/guest/postgres_guest.h"
#include "iotap/guest/vm_runner.h"
#include "iotap/stack_spec/stack_plan.h"
#include "iotap/stack_spec/stack_spec.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/process.h"
#include "iotap/util/stop_signal.h"

namespace {

using namespace iotap;

// A port nothing listens on now; qemu takes it a moment later (a race another program on this
// machine could win: qemu then fails to start, and says so).
uint16_t free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw std::runtime_error("no free port on 127.0.0.1");
  ::close(fd);
  return ntohs(address.sin_port);
}

// Whether an ssh server answers on the port: qemu accepts a connection on a forwarded port
// whether or not the guest listens, so only the server's "SSH-" banner says it is up.
bool ssh_banner_on(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  timeval wait{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  std::array<char, 4> banner{};
  const bool up = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                  ::recv(fd, banner.data(), banner.size(), MSG_WAITALL) == 4 &&
                  std::string(banner.data(), banner.size()) == "SSH-";
  ::close(fd);
  return up;
}

std::string host_script(const std::string& key, bool without_staprun, bool postgres) {
  std::string script =
      "set -e\n"
      "mkdir -p /etc /root\n"
      // root at /root (dropbear reads its keys there), beside the users already there
      // (--postgres: guest/postgres.sh's postgres).
      "others=$(grep -v '^root:' /etc/passwd 2>/dev/null || true)\n"
      "printf 'root:x:0:0:root:/root:/bin/sh\\n%s\\n' \"$others\" >/etc/passwd\n"
      "[ -f /etc/group ] || echo 'root:x:0:' >/etc/group\n"
      "mkdir -p /root/.ssh /etc/dropbear\n"
      "chmod 700 /root /root/.ssh\n"
      "cp '" +
      key +
      "' /root/.ssh/authorized_keys\n"
      "chmod 600 /root/.ssh/authorized_keys\n";
  if (without_staprun) script += "rm -f \"$(command -v staprun)\"\n";
  // guest/postgres.sh's launcher starts the server, then runs `true` as its user. Then the
  // server's libraries (libpq and what it needs, on the tools image) go on the system's library
  // path, as the postgresql-15 package puts them, for the psql iotap's agent runs there, and
  // the server's socket where that psql looks for it (/var/run/postgresql).
  if (postgres)
    script +=
        "/iotap/pg-traced true\n"
        ". /iotap/postgres.conf\n"
        "mkdir -p /usr/lib/x86_64-linux-gnu /var/run\n"
        "[ -e /var/run/postgresql ] || ln -s /run/postgresql /var/run/postgresql\n"
        "for dir in $(echo \"$IOTAP_PG_LIBRARY_PATH\" | tr ':' ' '); do\n"
        "  for lib in \"$dir\"/*; do\n"
        "    [ -e \"/usr/lib/x86_64-linux-gnu/${lib##*/}\" ] || ln -s \"$lib\" "
        "/usr/lib/x86_64-linux-gnu/\n"
        "  done\n"
        "done\n";
  // -F foreground, -E messages on stderr, -R host keys made now, -s keys only.
  script += "exec " + find_in_path("dropbear") + " -F -E -R -s -p 22\n";
  return script;
}

// As guest/guest_runner.cpp's add_postgres: the server's files on the tools image.
void add_postgres(guest::VmRun& run, uint64_t rows) {
  guest::PostgresRun postgres;
  postgres.install = guest::require_postgres_install();
  postgres.device = run.stack->top_path();
  postgres.rows = rows;
  const guest::PostgresFiles files = guest::postgres_files(postgres.install);
  run.tools_image = guest::postgres_tools_image(files, data_paths().cache);
  postgres.library_dirs = files.library_dirs;
  run.postgres = postgres;
}

}  // namespace

int main(int argc, char** argv) {
  install_stop_handlers();
  std::string spec;
  std::string key;
  bool without_staprun = false;
  unsigned cpus = 1;
  std::vector<std::string> programs;
  std::vector<std::string> files;
  uint64_t postgres_rows = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--stack" && i + 1 < argc) {
      spec = argv[++i];
    } else if (arg == "--key" && i + 1 < argc) {
      key = argv[++i];
    } else if (arg == "--cpus" && i + 1 < argc) {
      cpus = static_cast<unsigned>(std::stoul(argv[++i]));
    } else if (arg == "--program" && i + 1 < argc) {
      programs.emplace_back(argv[++i]);
    } else if (arg == "--file" && i + 1 < argc) {
      const std::string path = argv[++i];
      if (std::filesystem::is_directory(path)) {
        for (const auto& entry : std::filesystem::recursive_directory_iterator(path))
          if (entry.is_regular_file()) files.push_back(entry.path().string());
      } else {
        files.push_back(path);
      }
    } else if (arg == "--postgres" && i + 1 < argc) {
      postgres_rows = std::stoull(argv[++i]);
    } else if (arg == "--without-staprun") {
      without_staprun = true;
    } else {
      std::fprintf(stderr, "ssh_test_host: unknown argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  if (spec.empty() || key.empty()) {
    std::fprintf(stderr, "usage: ssh_test_host --stack SPEC --key KEY.pub [--without-staprun]\n");
    return 2;
  }
  try {
    const std::string dropbear = find_in_path("dropbear");
    if (dropbear.empty())
      throw UserError("no dropbear: apt-get install dropbear-bin (./setup.sh does)");
    guest::VmRun run;
    run.stack = stack_spec::plan_stack(stack_spec::parse_stack_spec(spec));
    run.command = {"sh", "-c", host_script(key, without_staprun, postgres_rows > 0)};
    run.plain_command = true;
    run.programs = {dropbear, IOTAP_BLOCK_HASHER};
    run.programs.insert(run.programs.end(), programs.begin(), programs.end());
    run.files = {key};
    run.files.insert(run.files.end(), files.begin(), files.end());
    run.cpus = cpus;
    run.ssh_port = free_loopback_port();
    if (postgres_rows > 0) add_postgres(run, postgres_rows);
    std::atomic<bool> running = false;
    std::atomic<bool> done = false;
    std::thread announce([&] {
      while (!done) {
        if (running && ssh_banner_on(run.ssh_port)) {
          std::printf("ready %u\n", run.ssh_port);
          std::fflush(stdout);
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    });
    guest::VmEvents events;
    events.stdout_data = [](std::string_view bytes) {
      std::fwrite(bytes.data(), 1, bytes.size(), stderr);
    };
    events.stderr_data = events.stdout_data;
    events.status = [&](std::string_view phrase) {
      std::fprintf(stderr, "ssh_test_host: %.*s\n", static_cast<int>(phrase.size()), phrase.data());
      if (phrase == "running") running = true;
    };
    events.device = [](const StackDevice&) {};
    int status = 0;
    try {
      status = guest::run_in_vm(run, events).exit_status;
    } catch (...) {
      done = true;
      announce.join();
      throw;
    }
    done = true;
    announce.join();
    return status;
  } catch (const Stopped& e) {
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ssh_test_host: %s\n", e.what());
    return 1;
  }
}
