// The `tandem` command: the kit's command line (tandem/cli/command_line.hpp) over the games this
// repository ships (games.cpp, the one file here that names them). Tests drive it through these
// three functions without a process.
#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "tandem/cli/command_line.hpp"

namespace tandem::cli {

// The `tandem` command's name and games, the arena (the default) first.
const Catalog& tandem_command();

inline Result<Command, UsageError> parse(std::span<const std::string_view> args) { return parse(tandem_command(), args); }
inline int run(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    return run(tandem_command(), args, out, err);
}
inline std::string help_text(std::string_view topic) { return help_text(tandem_command(), topic); }

}  // namespace tandem::cli
