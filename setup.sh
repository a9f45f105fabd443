#!/usr/bin/env bash
# Sets a Debian 12 machine up for iotap, builds it, and runs `iotap demo`.
#   ./setup.sh             install what is missing, build, run the demo
#   ./setup.sh --no-demo   install and build only (the test command uses this)
#   ./setup.sh --werror    warnings are errors (IOTAP_WERROR=ON; test.sh and CI use this)
# Idempotent: packages already installed are left alone; the build is incremental.
set -euo pipefail
cd "$(dirname "$0")"

run_demo=1
cmake_options=()
for arg in "$@"; do
  case "$arg" in
    --no-demo) run_demo=0 ;;
    --werror) cmake_options+=(-DIOTAP_WERROR=ON) ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (see ./setup.sh --help)" >&2; exit 2 ;;
  esac
done

# Everything iotap builds with, runs and tests with. The guest kernel is Debian's cloud
# kernel: its image and modules boot in qemu, its headers let stap compile for it. bpftrace is
# the peer that bench/overhead and the vm tests measure against, in the guest, from an ext4
# image that e2fsprogs' mke2fs builds. valgrind counts the instructions block_hasher's
# unattached probes add to a read (a unit test). Headless chromium (with a font to draw text in)
# opens the HTML report in a golden test; man-db renders the man pages made from --help.
# dpkg-dev's dpkg-shlibdeps finds the .deb's library dependencies (cmake/Package.cmake), and
# bubblewrap hides the source and build trees from the installed iotap a vm test runs.
# --target ssh:// runs over the user's own ssh (openssh-client); its tests' hosts are guests that
# run Debian's dropbear as their ssh server (dropbear-bin). PostgreSQL 15 (built with
# --enable-dtrace: its USDT probes) is the first program not ours that iotap follows; --postgres
# starts it in the guest from the tools image (docs/postgresql-guest.md).
packages=(
  build-essential cmake pkg-config
  libelf-dev libdw-dev libboost-program-options-dev libgtest-dev libssl-dev libxxhash-dev nlohmann-json3-dev
  systemtap systemtap-sdt-dev systemtap-doc python3 valgrind
  qemu-system-x86 linux-image-cloud-amd64 linux-headers-cloud-amd64
  linux-image-6.12-cloud-amd64 linux-headers-6.12-cloud-amd64
  busybox-static mdadm dmsetup fio
  bpftrace e2fsprogs postgresql-15
  chromium fonts-dejavu-core man-db dpkg-dev bubblewrap openssh-client dropbear-bin
  clang clang-format clang-tidy libclang-rt-14-dev
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
sudo=()
if [ "$(id -u)" != 0 ]; then
  sudo=(sudo)
fi
if ((${#missing[@]})); then
  command -v sudo >/dev/null || [ "$(id -u)" = 0 ] || { echo "setup.sh: installing ${missing[*]} needs root: run as root" >&2; exit 1; }
  echo "setup.sh: installing ${missing[*]}"
  if [[ " ${missing[*]} " == *" linux-image-6.12-cloud-amd64 "* ]]; then
    # The package puts 6.12 in /boot like any kernel: a machine that boots with GRUB boots the
    # newest one next time. iotap only reads its files, for the guest.
    echo "setup.sh: note: linux-image-6.12-cloud-amd64 is for iotap's guests; on a machine that boots with GRUB, 6.12 becomes its default kernel at the next boot unless GRUB_DEFAULT says otherwise"
  fi
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The guest kernels' DWARF and real System.map (6.1: 283 MB download, 1.75 GB installed; 6.12:
# 318 MB, 1.8 GB): stap needs them for kernel.function(), module().function(), $vars, @cast and
# the standard tapsets. The releases are those cmake/GuestKernel.cmake picks: IOTAP_GUEST_KERNEL,
# else the newest installed cloud kernel with headers of the default series
# (IOTAP_GUEST_KERNEL_SERIES, else 6.1), and of the second series the tests also run on (6.12,
# --guest-kernel), which cmake/ChooseGuestKernel.cmake chooses for all. Debian 12 ships 6.12 as
# linux-image-6.12-cloud-amd64; its image, headers and -dbg together are 368 MB to download and
# 1.9 GB on disk. Installed, it never becomes the default: the build chooses by series.
guest_release="${IOTAP_GUEST_KERNEL:-}"
if [ -z "$guest_release" ]; then
  series_option=()
  [ -z "${IOTAP_GUEST_KERNEL_SERIES:-}" ] || series_option=("-DSERIES=$IOTAP_GUEST_KERNEL_SERIES")
  guest_release="$(cmake "${series_option[@]}" -P cmake/ChooseGuestKernel.cmake)"
fi
second_release="$(cmake -DSERIES=6.12 -P cmake/ChooseGuestKernel.cmake)"
debug_packages=()
for release in "$guest_release" "$second_release"; do
  [ -n "$release" ] && [ "$release" != none ] || continue
  package="linux-image-$release-dbg"
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || debug_packages+=("$package")
done
if ((${#debug_packages[@]})); then
  echo "setup.sh: installing ${debug_packages[*]} (the guest kernels' debuginfo, about 300 MB each to download)"
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${debug_packages[@]}"
fi

# Without --werror the option is left as build/ has it (off in a new build/), so running
# ./setup.sh after ./test.sh does not rebuild everything with other flags.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cmake_options[@]}"
cmake --build build -j"$(nproc)"

if ((run_demo)); then
  build/launcher/iotap demo
fi
