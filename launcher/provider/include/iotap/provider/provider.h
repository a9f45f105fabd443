#pragma once
// A request source declared in a provider file (docs/providers.md): which USDT probes begin and
// end a program's requests, how an end is paired with its begin, and which of the probes'
// arguments give the op, file, offset, size and result. Read strictly: anything the reader does
// not understand is a UserError naming the file, the line and what was expected.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "iotap/provider/expression.h"

namespace iotap::provider {

// A USDT probe a provider uses, with the argument count its declaration expects.
struct ProbeUse {
  std::string name;  // "query__start", as in the binary's .note.stapsdt
  int args = 0;
  int line = 0;  // where the provider file names it, for messages
};

// One level of a provider's requests ("query", then "buffer_read", ...), outermost first.
struct Level {
  std::string name;    // "query"
  std::string plural;  // "queries"
  ProbeUse begin;
  ProbeUse end;
  // Empty: an end closes its thread's innermost open request of this level (KEY 0). Otherwise
  // the key, computed from the begin probe's arguments and again from the end probe's.
  std::optional<Expression> pair_key;
  char op = '-';                           // R, W, F, or '-' (not I/O itself: a query)
  Expression file = Expression::zero();    // begin's arguments
  Expression offset = Expression::zero();  // begin's arguments
  Expression size = Expression::zero();    // begin's arguments
  Expression result = Expression::zero();  // end's arguments
  std::optional<int> text_arg;             // the begin argument holding a C string
};

struct Provider {
  std::string name;   // the USDT provider name in the binary's notes: "postgresql"
  std::string about;  // one line for listings: "PostgreSQL 15 (Debian 12's postgresql-15)"
  std::string path;   // the provider file
  // Probed when the traced program does not have the probes itself (PostgreSQL's server is not
  // the -c program: psql is). The first that exists is taken.
  std::vector<std::string> programs;
  // An examples/ script printing the requests itself (block_hasher's RS/RD, kept because
  // recordings and golden streams use them); empty: iotap generates the script (PB/PT/PE).
  std::string script;
  std::vector<Level> levels;
};

// What the launcher passes to the engine (engine::Options::levels): each level's name and
// plural, outermost first.
struct LevelName {
  std::string name;
  std::string plural;
};
std::vector<LevelName> level_names(const Provider& provider);

// The provider file's text, parsed; `path` names it in messages. Throws UserError.
Provider parse_provider(const std::string& text, const std::string& path);

// The provider file at `path`, read and parsed. Throws UserError.
Provider read_provider(const std::string& path);

}  // namespace iotap::provider
