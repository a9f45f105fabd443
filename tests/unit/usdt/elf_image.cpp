#include "elf_image.h"

namespace iotap::usdt::testing {
namespace {

class Writer {
 public:
  explicit Writer(ByteOrder order) : order_(order) {}

  void put(std::uint64_t value, std::size_t width) {
    for (std::size_t i = 0; i < width; ++i) {
      const std::size_t shift = 8 * (order_ == ByteOrder::kLittle ? i : width - 1 - i);
      bytes_.push_back(static_cast<std::uint8_t>(value >> shift));
    }
  }
  void put_bytes(const Bytes& more) { bytes_.insert(bytes_.end(), more.begin(), more.end()); }
  void put_string(const std::string& text) {
    bytes_.insert(bytes_.end(), text.begin(), text.end());
    bytes_.push_back(0);
  }
  void align(std::size_t to) {
    while (bytes_.size() % to != 0) {
      bytes_.push_back(0);
    }
  }
  [[nodiscard]] std::size_t size() const { return bytes_.size(); }
  Bytes take() { return std::move(bytes_); }

 private:
  ByteOrder order_;
  Bytes bytes_;
};

struct Section {
  std::uint32_t name = 0;
  std::uint32_t type = 0;
  std::uint64_t flags = 0;
  std::uint64_t address = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t align = 1;
};

}  // namespace

Bytes make_descriptor(AddressFormat format, std::uint64_t pc, std::uint64_t base,
                      std::uint64_t semaphore, const std::string& provider, const std::string& name,
                      const std::string& args) {
  Writer w(format.byte_order);
  const std::size_t word = address_size(format.elf_class);
  w.put(pc, word);
  w.put(base, word);
  w.put(semaphore, word);
  w.put_string(provider);
  w.put_string(name);
  w.put_string(args);
  return w.take();
}

Bytes make_note(ByteOrder order, const std::string& owner, std::uint32_t type, const Bytes& desc) {
  Writer w(order);
  w.put(owner.size() + 1, 4);
  w.put(desc.size(), 4);
  w.put(type, 4);
  w.put_string(owner);
  w.align(4);
  w.put_bytes(desc);
  w.align(4);
  return w.take();
}

Bytes make_elf_image(const ImageSpec& spec) {
  const bool is64 = spec.format.elf_class == ElfClass::k64;
  const std::size_t word = is64 ? 8 : 4;
  const std::size_t header_size = is64 ? 64 : 52;
  const std::size_t section_header_size = is64 ? 64 : 40;

  // Section name table: "\0.shstrtab\0.note.stapsdt\0.stapsdt.base\0".
  const std::string names = std::string("\0.shstrtab\0.note.stapsdt\0.stapsdt.base\0", 39);
  std::vector<Section> sections(1);  // index 0 is the null section

  Writer body(spec.format.byte_order);
  body.put_bytes(Bytes(header_size, 0));  // the ELF header is written last, over this
  sections.push_back({.name = 1, .type = 3, .offset = body.size(), .size = names.size()});
  body.put_bytes(Bytes(names.begin(), names.end()));
  if (spec.note_section) {
    body.align(4);
    sections.push_back({.name = 11,
                        .type = spec.note_section_type,
                        .offset = body.size(),
                        .size = spec.notes.size(),
                        .align = 4});
    body.put_bytes(spec.notes);
  }
  if (spec.base_section_address) {
    sections.push_back({.name = 25,
                        .type = 1,   // SHT_PROGBITS
                        .flags = 2,  // SHF_ALLOC
                        .address = *spec.base_section_address,
                        .offset = body.size(),
                        .size = 1});
    body.put_bytes(Bytes{0});
  }
  body.align(8);
  const std::size_t section_headers_at = body.size();
  for (const Section& s : sections) {
    body.put(s.name, 4);
    body.put(s.type, 4);
    body.put(s.flags, word);
    body.put(s.address, word);
    body.put(s.offset, word);
    body.put(s.size, word);
    body.put(0, 4);  // link
    body.put(0, 4);  // info
    body.put(s.align, word);
    body.put(0, word);  // entsize
  }
  Bytes image = body.take();

  Writer header(spec.format.byte_order);
  header.put_bytes({0x7f, 'E', 'L', 'F', static_cast<std::uint8_t>(is64 ? 2 : 1),
                    static_cast<std::uint8_t>(spec.format.byte_order == ByteOrder::kLittle ? 1 : 2),
                    1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  header.put(2, 2);              // ET_EXEC
  header.put(is64 ? 62 : 3, 2);  // EM_X86_64 / EM_386; only the class matters here
  header.put(1, 4);              // EV_CURRENT
  header.put(0, word);           // entry
  header.put(0, word);           // no program headers
  header.put(section_headers_at, word);
  header.put(0, 4);  // flags
  header.put(header_size, 2);
  header.put(0, 2);  // phentsize
  header.put(0, 2);  // phnum
  header.put(section_header_size, 2);
  header.put(sections.size(), 2);
  header.put(1, 2);  // .shstrtab is section 1
  const Bytes ehdr = header.take();
  std::copy(ehdr.begin(), ehdr.end(), image.begin());
  return image;
}

}  // namespace iotap::usdt::testing
