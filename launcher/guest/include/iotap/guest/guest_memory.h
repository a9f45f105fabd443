#pragma once
// A guest's memory when nothing says otherwise: --memory's default, a shared guest's
// (iotap guest start), the guest qemu boots, and what iotap doctor checks the host has free.

namespace iotap::guest {

inline constexpr unsigned kDefaultMemoryMib = 1024;

}  // namespace iotap::guest
