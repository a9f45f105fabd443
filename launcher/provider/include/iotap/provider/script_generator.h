#pragma once
// A provider's SystemTap script, written from its declaration: for each level a probe on its
// begin and one on its end, printing PB (and PT, with the text) and PE (docs/event-format.md);
// the system calls of the threads inside a request (SS/SD, tapsets/syscall_io.stp) and the
// block layer's events. Every value in it is iotap's: names checked as names, expressions
// written from their parsed form, the program's path quoted as a stap string.
#include <string>

#include "iotap/provider/provider.h"

namespace iotap::provider {

// The script for `provider`'s generated events, probing `program` (an absolute path: the
// traced program, or one of the provider's declared programs; provider/catalog.h).
std::string generated_script(const Provider& provider, const std::string& program);

}  // namespace iotap::provider
