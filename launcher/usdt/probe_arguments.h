#pragma once
// The argument string of a stapsdt note, e.g. "-4@%edx 8@%rax 8f@%xmm0 8@-16(%rbp)".
//
// Each argument is [-]SIZE[f]@OPERAND: '-' for signed, SIZE in bytes, 'f' for floating point.
// Notes from sdt.h before the SIZE@ prefix existed carry a bare OPERAND; its size is unknown (0).
// Arguments are separated by spaces, except inside brackets: aarch64 writes "[sp, 16]".
#include <string_view>
#include <vector>

#include "iotap/usdt/expected.h"
#include "iotap/usdt/probe.h"

namespace iotap::usdt {

Expected<std::vector<Argument>> parse_arguments(std::string_view text);

}  // namespace iotap::usdt
