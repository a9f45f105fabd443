#pragma once
// Whether a program can be call-graphed: stap names its functions from the symbol table and
// reads their arguments from DWARF. Checked with libelf before a two-minute compile.
#include <string>

namespace iotap::callgraph {

// Empty when `binary` has both a symbol table (.symtab) and debug info (.debug_info);
// otherwise one line saying what is missing and exactly how to rebuild it.
std::string missing_debug_info(const std::string& binary);

}  // namespace iotap::callgraph
