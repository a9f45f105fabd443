#pragma once
// What a program needs to run in a guest that has none of the host's files: its ELF
// interpreter and the shared libraries it names (DT_NEEDED), transitively, found the way the
// dynamic loader finds them. Read with libelf; nothing is executed.
#include <string>
#include <vector>

namespace iotap::guest {

// Host paths of the program's interpreter and libraries (not the program itself), each once.
// A script with a #! line yields its interpreter and that interpreter's libraries.
// Throws UserError for a library that cannot be found.
std::vector<std::string> runtime_dependencies(const std::string& program);

}  // namespace iotap::guest
