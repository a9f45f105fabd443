#pragma once
// The functions an ELF file defines, by name, from its symbol tables (libelf): what a probe
// point may name in it.
#include <optional>
#include <set>
#include <string>

namespace iotap::callgraph {

enum class SymbolTables { kSymtabOnly, kSymtabAndDynsym };

// Names of the defined STT_FUNC symbols of `file`; nullopt when it cannot be opened or libelf
// cannot read this ELF version. kSymtabAndDynsym also reads .dynsym, which a stripped shared
// library still has.
std::optional<std::set<std::string>> defined_function_names(const std::string& file,
                                                            SymbolTables tables);

}  // namespace iotap::callgraph
