#include "cpio_writer.h"

#include <sys/stat.h>

#include <array>
#include <cstdio>

#include "iotap/util/error.h"

namespace iotap::guest {

CpioWriter::CpioWriter(const std::string& path)
    : out_(path, std::ios::binary | std::ios::trunc), path_(path) {
  if (!out_) throw UserError("cannot write initramfs '" + path + "'");
  written_.insert("/");
}

void CpioWriter::header(const std::string& path, uint32_t mode, uint64_t size) {
  if (size > UINT32_MAX) throw UserError("initramfs: '" + path + "' is too large for cpio");
  const std::string name = path.substr(1);  // archive names are relative: "bin/sh"
  std::array<char, 111> fields{};
  std::snprintf(fields.data(), fields.size(),
                "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", next_inode_++, mode,
                0U, 0U, S_ISDIR(mode) ? 2U : 1U, 0U, static_cast<uint32_t>(size), 0U, 0U, 0U, 0U,
                static_cast<uint32_t>(name.size() + 1), 0U);
  out_.write(fields.data(), 110);
  out_.write(name.c_str(), static_cast<std::streamsize>(name.size() + 1));
  offset_ += 110 + name.size() + 1;
  pad();
}

void CpioWriter::pad() {
  static constexpr std::array<char, 4> kZeros{};
  const auto remainder = static_cast<std::streamsize>((4 - offset_ % 4) % 4);
  out_.write(kZeros.data(), remainder);
  offset_ += static_cast<uint64_t>(remainder);
}

void CpioWriter::add_parents(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == 0 || slash == std::string::npos) return;
  add_directory(path.substr(0, slash));
}

void CpioWriter::add_directory(const std::string& path) {
  if (written_.contains(path)) return;
  add_parents(path);
  header(path, S_IFDIR | 0755, 0);
  written_.insert(path);
}

void CpioWriter::add_file(const std::string& path, std::string_view content, uint32_t mode) {
  if (written_.contains(path)) return;
  add_parents(path);
  header(path, S_IFREG | mode, content.size());
  out_.write(content.data(), static_cast<std::streamsize>(content.size()));
  offset_ += content.size();
  pad();
  written_.insert(path);
}

void CpioWriter::add_host_file(const std::string& path, const std::string& host_path,
                               uint32_t mode) {
  if (written_.contains(path)) return;
  std::ifstream in(host_path, std::ios::binary);
  if (!in) throw UserError("initramfs: cannot read '" + host_path + "'");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  add_parents(path);
  header(path, S_IFREG | mode, size);
  out_ << in.rdbuf();
  offset_ += size;
  pad();
  written_.insert(path);
}

void CpioWriter::add_symlink(const std::string& path, const std::string& target) {
  if (written_.contains(path)) return;
  add_parents(path);
  header(path, S_IFLNK | 0777, target.size());
  out_.write(target.data(), static_cast<std::streamsize>(target.size()));
  offset_ += target.size();
  pad();
  written_.insert(path);
}

void CpioWriter::finish() {
  header("/TRAILER!!!", 0, 0);
  out_.close();
  if (!out_) throw UserError("cannot write initramfs '" + path_ + "' (disk full?)");
}

}  // namespace iotap::guest
