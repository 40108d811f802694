// The command line of a list of games (tandem/cli/command_line.hpp): parsing, help and dispatch
// to the commands of the game asked for (--game; game_commands.hpp writes each command once over
// the seam; the `tandem` command's list is src/cli/games.cpp, a game's own command is generated
// by tandem_add_game).
// Output is the contract the cross-build check diffs, so it must depend on nothing but the
// simulation: no timings, no locale, no host-dependent formatting. What the command line
// accepts is listed once, in the tables below; every message and help text is built from them.
#include "tandem/cli/command_line.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <ostream>

#include "tandem/core/bytes.hpp"
#include "tandem/core/digest.hpp"

#ifndef TANDEM_VERSION
#error "TANDEM_VERSION must come from CMake's PROJECT_VERSION (src/cli/CMakeLists.txt)"
#endif

namespace tandem::cli {

namespace {

using tandem::hex64;

constexpr uint64_t max_ticks = 100'000'000;

// ---- What the command line accepts ------------------------------------------------------

enum class Flag : uint8_t { game, scenario, ticks, every, format, from, tick, out, dump_at, world, allow_truncated };

struct FlagSpec {
    Flag flag;
    std::string_view name;      // as typed
    std::string_view value;     // its value in a usage line ("" for --format: the format names)
    std::string_view expects;   // what a value must be ("" for --scenario, --format: the accepted names)
    bool takes_value = true;    // false: a switch, given alone (--allow-truncated)
};
constexpr FlagSpec flag_specs[] = {
    {Flag::game, "--game", "GAME", ""},
    {Flag::scenario, "--scenario", "NAME", ""},
    {Flag::ticks, "--ticks", "N", "a whole number of ticks"},
    {Flag::every, "--every", "K", "a whole number of ticks, at least 1"},
    {Flag::format, "--format", "", ""},
    {Flag::from, "--from", "FILE", "a snapshot file"},
    {Flag::tick, "--tick", "N", "a whole number of ticks"},
    {Flag::out, "--out", "FILE", "the file to write"},
    {Flag::dump_at, "--dump-at", "TICK", "a whole number of ticks"},
    {Flag::world, "--world", "FILE", "a world file (scenario and ticks; see 'tandem run --help')"},
    {Flag::allow_truncated, "--allow-truncated", "", "", false},
};

struct FormatName {
    std::string_view name;
    Format format;
};
constexpr FormatName format_names[] = {{"text", Format::text}, {"json", Format::json}};

struct FlagUse {
    Flag flag;
    bool required;
};
// run needs --scenario or --world (checked after parsing: the table has no "one of").
constexpr FlagUse run_flags[] = {{Flag::game, false},  {Flag::scenario, false}, {Flag::world, false},
                                 {Flag::ticks, false}, {Flag::every, false},    {Flag::format, false},
                                 {Flag::from, false}};
constexpr FlagUse dump_flags[] = {{Flag::game, false}, {Flag::scenario, true}, {Flag::tick, true}};
constexpr FlagUse snapshot_flags[] = {{Flag::game, false}, {Flag::scenario, true}, {Flag::tick, true}, {Flag::out, true}};
constexpr FlagUse replay_flags[] = {{Flag::game, false}, {Flag::dump_at, false}, {Flag::allow_truncated, false}};
constexpr FlagUse game_only_flags[] = {{Flag::game, false}};

constexpr std::string_view version_aliases[] = {"--version", "fingerprint"};

struct CommandSpec {
    std::string_view name;
    CommandKind kind;
    std::span<const std::string_view> aliases;
    std::span<const FlagUse> flags;
    std::string_view summary;   // its line in the overview
    std::string_view details;   // its help, after the usage line
    bool own_parser = false;    // its arguments are read elsewhere (serve: src/server)
    std::string_view operand = {};          // its one required positional argument ("" for none)
    std::string_view operand_expects = {};  // what the operand must be, for messages
};
constexpr CommandSpec command_specs[] = {
    {"run", CommandKind::run, {}, run_flags, "print a scenario's digest stream",
     "  Steps the scenario N ticks (default 2000) and prints the state digest at the first\n"
     "  tick, at every multiple of K (default 100) and at the last tick (16 lowercase hex\n"
     "  digits each).\n"
     "  text (the default): one 'TICK DIGEST' line per point, then one 'summary ...' line.\n"
     "  json: one JSON document,\n"
     "    {\"scenario\": NAME, \"stream\": [{\"tick\": T, \"digest\": \"HEX\"}, ...],\n"
     "     \"summary\": {\"scenario\", \"ticks\", \"digest\", \"captures\", \"wells\", \"pellets\",\n"
     "                 \"fingerprint\"}}\n"
     "  (the summary holds the text summary's fields, ticks being the last tick).\n"
     "  --from FILE starts from a snapshot of the scenario's world (see 'tandem snapshot')\n"
     "  at its tick T instead of tick 0 and steps N more ticks, to T + N; a snapshot that\n"
     "  does not decode, or holds another scenario's world, exits 1 with the reason.\n"
     "  --world FILE runs the scenario and ticks a world file names instead of --scenario\n"
     "  (what the determinism check's shrinker writes): 'scenario NAME', 'ticks N', optionally\n"
     "  'every K' and 'expect TICK DIGEST' lines, '#' comments. --ticks and --every override\n"
     "  the file's. With an 'expect' line, a digest at that tick other than the recorded one\n"
     "  exits 1 after the stream (the file records the reference build's digest). A file that\n"
     "  cannot be read or does not parse, or a NAME that does not resolve, exits 1.\n"},
    {"dump", CommandKind::dump, {}, dump_flags, "print a scenario's canonical state at one tick",
     "  Steps the scenario to tick N and prints the canonical state, one 'path value' line\n"
     "  per field in the game's visit order (Fx as raw Q16.16 integers; list elements named by\n"
     "  their keys, as wells[3].pos.x), then each section's digest and the digest, for diffing\n"
     "  two builds.\n"},
    {"snapshot", CommandKind::snapshot, {}, snapshot_flags, "write a scenario's snapshot at one tick",
     "  Steps the scenario to tick N, writes its snapshot (the world's encoded bytes, the\n"
     "  same the wasm build writes and reads) to FILE and prints 'N DIGEST'. Resume it with\n"
     "  'tandem run --scenario NAME --from FILE'. A file that cannot be written exits 1.\n"},
    {"scenarios", CommandKind::scenarios, {}, game_only_flags, "list a game's scenarios",
     "  Lists the game's scenarios with one line each.\n"},
    {"games", CommandKind::games, {}, {}, "list the games this command ships",
     "  Lists the games with one line each: name, fingerprint, description. --game takes the\n"
     "  name; without it every command runs the first game listed.\n"},
    {"version", CommandKind::version, version_aliases, game_only_flags, "print the version and the snapshot fingerprint",
     "  Prints the version, the game's snapshot fingerprint (format, number format, game and\n"
     "  simulation version; the same string the wasm build reports) and its simulation version.\n"},
    {"serve", CommandKind::serve, {}, {}, "run the room and the page's server (tandem serve --help)",
     "  Runs the room and the page's server until a signal stops it (native g++ builds only).\n"
     "  Its options: tandem serve --help.\n",
     true},
    {"ticket", CommandKind::ticket, {}, {}, "mint a join ticket for a room that requires them (tandem ticket --help)",
     "  Signs one join ticket with the key a server was given (tandem serve --ticket-key FILE), as\n"
     "  a lobby would, and prints it (native g++ builds only). Its options: tandem ticket --help.\n",
     true},
    {"replay", CommandKind::replay, {}, replay_flags, "re-run a recorded match and check every digest",
     "  Reads a replay (what 'tandem serve --record FILE' writes, or a page's exported\n"
     "  replay) of any game this command ships (its header names the game's fingerprint;\n"
     "  --game only checks it is that game), re-runs it from its first baseline and compares\n"
     "  the digest after every frame (and every later baseline) with this build's. Prints the\n"
     "  ticks checked and exits 0 when all agree; on the first mismatch prints its tick, the\n"
     "  sections that differ when the replay holds the room's section digests there, and the\n"
     "  fields that differ ('path replay-value this-build-value (section)') at the first state\n"
     "  the replay holds at or after it, and exits 1. A file that is no replay, or was\n"
     "  written by another protocol or simulation exits 1 with the reason.\n"
     "  A file without its end marker (its writer never finished: 'tandem serve' killed, a\n"
     "  crash, a full disk; a server writes every tick as it ends, so at most the tick in\n"
     "  progress is lost) is truncated: it exits 1 naming the last tick it covers and where\n"
     "  it was cut. --allow-truncated checks the whole records it holds instead, says it was\n"
     "  truncated, and exits as for a whole file.\n"
     "  --dump-at TICK prints this build's canonical state at that tick instead (as\n"
     "  'tandem dump' does), stepping on past any mismatch; a tick the replay does not\n"
     "  cover exits 2.\n",
     false, "FILE", "a replay file"},
};

constexpr std::string_view help_words[] = {"help", "--help", "-h"};

const FlagSpec& spec_of(Flag flag) {
    for (const FlagSpec& f : flag_specs) {
        if (f.flag == flag) return f;
    }
    return flag_specs[0];  // unreachable: every Flag has a row
}

template <class Range, class Name>
std::string joined(const Range& items, std::string_view separator, Name name) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += separator;
        out += name(item);
    }
    return out;
}

std::string command_names() {
    return joined(command_specs, ", ", [](const CommandSpec& c) { return c.name; });
}

// What a flag's value must be, for messages: "accepted: a, b" or a phrase. Scenario names
// depend on the game, which the command line may name after --scenario: the default's here,
// the chosen game's when the name is checked (resolve_game).
std::string expects(const Catalog& catalog, Flag flag) {
    if (flag == Flag::scenario) return "accepted: " + catalog.find("")->scenario_names();
    if (flag == Flag::game) return "accepted: " + catalog.names();
    if (flag == Flag::format) return "accepted: " + joined(format_names, ", ", [](const FormatName& f) { return f.name; });
    return std::string(spec_of(flag).expects);
}

std::string value_hint(Flag flag) {
    if (flag == Flag::format) return joined(format_names, "|", [](const FormatName& f) { return f.name; });
    return std::string(spec_of(flag).value);
}

std::string accepted_flags(const CommandSpec& c) {
    std::string list = joined(c.flags, ", ", [](const FlagUse& u) { return spec_of(u.flag).name; });
    if (!c.operand.empty()) list = "one " + std::string(c.operand) + (list.empty() ? "" : ", " + list);
    return list.empty() ? "--help" : list + ", --help";
}

bool is_help_word(std::string_view a) {
    for (std::string_view h : help_words) {
        if (a == h) return true;
    }
    return false;
}

// The help's sentences name the `tandem` command ('tandem snapshot', 'tandem serve --help'); a
// game's own command says its own name instead.
std::string in_program(const Catalog& catalog, std::string_view text) {
    std::string out(text);
    if (catalog.program == "tandem") return out;
    const std::string from = "tandem ", to = std::string(catalog.program) + " ";
    for (size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size())) {
        out.replace(at, from.size(), to);
    }
    return out;
}

const CommandSpec* find_command(std::string_view word) {
    for (const CommandSpec& c : command_specs) {
        if (word == c.name) return &c;
        for (std::string_view alias : c.aliases) {
            if (word == alias) return &c;
        }
    }
    return nullptr;
}

// ---- Parsing ----------------------------------------------------------------------------

UsageError usage(std::string message) { return UsageError{std::move(message)}; }

std::optional<std::string> check_count(std::string_view flag, std::string_view text, uint64_t min, uint64_t max,
                                       uint64_t& out) {
    if (!text.empty() && text[0] == '-') {
        return std::string(flag) + " must not be negative (got '" + std::string(text) + "'; accepted: " +
               std::to_string(min) + ".." + std::to_string(max) + ")";
    }
    const auto v = parse_count(text, max);
    if (!v || *v < min) {
        return std::string(flag) + " expects a whole number in " + std::to_string(min) + ".." + std::to_string(max) +
               " (got '" + std::string(text) + "')";
    }
    out = *v;
    return std::nullopt;
}

// Stores one flag's value in the command, or says why it cannot.
std::optional<std::string> apply_flag(const Catalog& catalog, Flag flag, std::string_view value, Command& cmd) {
    const std::string_view name = spec_of(flag).name;
    switch (flag) {
    case Flag::game:
        if (catalog.find(value) == nullptr) return "unknown game '" + std::string(value) + "' (" + expects(catalog, flag) + ")";
        cmd.game = std::string(value);
        return std::nullopt;
    case Flag::scenario: cmd.scenario = std::string(value); return std::nullopt;
    case Flag::ticks: return check_count(name, value, 0, max_ticks, cmd.ticks);
    case Flag::every: return check_count(name, value, 1, max_ticks, cmd.every);
    case Flag::tick: return check_count(name, value, 0, max_ticks, cmd.tick);
    case Flag::format:
        for (const FormatName& f : format_names) {
            if (value == f.name) {
                cmd.format = f.format;
                return std::nullopt;
            }
        }
        return "unknown format '" + std::string(value) + "' (" + expects(catalog, flag) + ")";
    case Flag::from: cmd.from_path = std::string(value); return std::nullopt;
    case Flag::out: cmd.out_path = std::string(value); return std::nullopt;
    case Flag::dump_at: {
        uint64_t tick = 0;
        if (auto problem = check_count(name, value, 0, UINT64_MAX, tick)) return problem;
        cmd.dump_at = tick;
        return std::nullopt;
    }
    case Flag::world: cmd.world_path = std::string(value); return std::nullopt;
    case Flag::allow_truncated: cmd.allow_truncated = true; return std::nullopt;
    }
    return std::nullopt;
}

Command help_on(const Catalog& catalog, std::string_view topic) {
    Command cmd;
    cmd.program = std::string(catalog.program);
    cmd.kind = CommandKind::help;
    cmd.topic = std::string(topic);
    return cmd;
}

// Reads "--flag value" and "--flag=value" for one command, against its row of the table.
Result<Command, UsageError> parse_command(const Catalog& catalog, const CommandSpec& spec,
                                          std::span<const std::string_view> rest) {
    Command cmd;
    cmd.kind = spec.kind;
    cmd.program = std::string(catalog.program);
    if (spec.own_parser) {
        cmd.serve_args.assign(rest.begin(), rest.end());
        return cmd;
    }
    std::vector<Flag> seen;
    for (size_t i = 0; i < rest.size();) {
        std::string_view arg = rest[i++];
        if (is_help_word(arg) && arg != "help") return help_on(catalog, spec.name);
        std::optional<std::string_view> inline_value;
        if (const size_t eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
            inline_value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
        }
        if (!spec.operand.empty() && cmd.operand.empty() && !arg.starts_with("-")) {
            cmd.operand = std::string(arg);
            continue;
        }
        const FlagUse* use = nullptr;
        for (const FlagUse& u : spec.flags) {
            if (spec_of(u.flag).name == arg) use = &u;
        }
        if (use == nullptr) {
            return usage("unknown argument '" + std::string(arg) + "' for " + std::string(spec.name) +
                         " (accepted: " + accepted_flags(spec) + ")");
        }
        if (!spec_of(use->flag).takes_value) {
            if (inline_value) return usage(std::string(arg) + " takes no value (got '" + std::string(*inline_value) + "')");
            if (auto problem = apply_flag(catalog, use->flag, {}, cmd)) return usage(*problem);
            seen.push_back(use->flag);
            continue;
        }
        std::string_view value;
        if (inline_value) {
            value = *inline_value;
        } else if (i < rest.size() && !rest[i].starts_with("--")) {
            value = rest[i++];
        }
        if (value.empty()) return usage("missing value for " + std::string(arg) + " (" + expects(catalog, use->flag) + ")");
        if (auto problem = apply_flag(catalog, use->flag, value, cmd)) return usage(*problem);
        seen.push_back(use->flag);
    }
    if (!spec.operand.empty() && cmd.operand.empty()) {
        return usage(std::string(spec.name) + " needs " + std::string(spec.operand) + " (" +
                     std::string(spec.operand_expects) + ")");
    }
    for (const FlagUse& u : spec.flags) {
        if (!u.required || std::find(seen.begin(), seen.end(), u.flag) != seen.end()) continue;
        const FlagSpec& f = spec_of(u.flag);
        return usage(std::string(spec.name) + " needs " + std::string(f.name) + " " + value_hint(u.flag) + " (" +
                     expects(catalog, u.flag) + ")");
    }
    const auto given = [&](Flag f) { return std::find(seen.begin(), seen.end(), f) != seen.end(); };
    // A scenario resolves in its game, which may come after it on the line.
    if (given(Flag::scenario)) {
        const GameEntry& game = *catalog.find(cmd.game);
        if (auto problem = game.scenario_problem(cmd.scenario)) return usage(*problem);
    }
    if (spec.kind == CommandKind::run) {
        if (given(Flag::world) && given(Flag::scenario)) return usage("run takes --scenario NAME or --world FILE, not both");
        if (given(Flag::world) && given(Flag::from)) return usage("run --world FILE starts at tick 0: --from is not accepted with it");
        if (!given(Flag::world) && !given(Flag::scenario)) {
            return usage("run needs --scenario NAME (" + expects(catalog, Flag::scenario) + ") or --world FILE");
        }
        cmd.ticks_given = given(Flag::ticks);
        cmd.every_given = given(Flag::every);
    }
    return cmd;
}

// ---- Running ----------------------------------------------------------------------------

// A world file (written by the determinism check's shrinker): its game, scenario and ticks,
// with the command line's --ticks and --every taking precedence. Bad data exits 1.
std::optional<WorldFile> load_world_file(const Command& cmd, std::ostream& err) {
    std::ifstream in(cmd.world_path, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (!in.is_open() || in.bad()) {
        err << cmd.program << ": cannot read world file '" << cmd.world_path << "'\n";
        return std::nullopt;
    }
    auto parsed = parse_world_file(text);
    if (!parsed) {
        err << cmd.program << ": world file '" << cmd.world_path << "' refused: " << parsed.message() << '\n';
        return std::nullopt;
    }
    return std::move(parsed).value();
}

int command_run(const Catalog& catalog, const Command& given, std::ostream& out, std::ostream& err) {
    Command cmd = given;
    std::optional<WorldFile> file;
    if (!cmd.world_path.empty()) {
        file = load_world_file(cmd, err);
        if (!file) return exit_data;
        if (!file->game.empty()) {
            if (!cmd.game.empty() && cmd.game != file->game) {
                err << cmd.program << ": world file '" << cmd.world_path << "' is a world of " << file->game << ", not of "
                    << cmd.game << "\n";
                return exit_data;
            }
            if (catalog.find(file->game) == nullptr) {
                err << cmd.program << ": world file '" << cmd.world_path << "' refused: unknown game '" << file->game
                    << "' (accepted: " << catalog.names() << ")\n";
                return exit_data;
            }
            cmd.game = file->game;
        }
        cmd.scenario = file->scenario;
        if (!cmd.ticks_given) cmd.ticks = file->ticks;
        if (!cmd.every_given) cmd.every = file->every;
    }
    return catalog.find(cmd.game)->run(cmd, file, out, err);
}

// `replay FILE`: the game is the one whose fingerprint the file's header names.
int command_replay(const Catalog& catalog, const Command& cmd, std::ostream& out, std::ostream& err) {
    const auto bytes = read_file(cmd.operand, "replay", cmd.program, err);
    if (!bytes) return exit_data;
    const GameEntry* game = catalog.find(cmd.game);
    // "TNDR" | u16 format | u16 protocol | u64 fingerprint hash: the reader checks the rest.
    ByteReader header(*bytes);
    (void)header.take(8);
    const uint64_t print = header.u64();
    if (header.ok()) {
        if (const GameEntry* named = catalog.with_fingerprint(print)) {
            if (!cmd.game.empty() && named != game) {
                err << cmd.program << ": replay '" << cmd.operand << "' is a match of " << named->name << ", not of " << game->name
                    << "\n";
                return exit_data;
            }
            game = named;
        }
    }
    return game->replay(cmd, *bytes, out, err);
}

// `serve` has its own flags and help (src/server and the game's); it runs until a signal stops
// it. --game NAME (or --game=NAME), wherever it stands, picks the game; the rest is the game's.
int command_serve(const Catalog& catalog, const Command& cmd, std::ostream& out, std::ostream& err) {
    std::string name;
    std::vector<std::string_view> args;
    for (size_t i = 0; i < cmd.serve_args.size(); ++i) {
        const std::string_view arg = cmd.serve_args[i];
        if (arg == "--game") {
            if (i + 1 >= cmd.serve_args.size()) {
                err << cmd.program << " serve: missing value for --game (accepted: " << catalog.names() << ")\n";
                return exit_usage;
            }
            name = cmd.serve_args[++i];
        } else if (arg.starts_with("--game=")) {
            name = std::string(arg.substr(7));
        } else {
            args.push_back(arg);
        }
    }
    const GameEntry* game = catalog.find(name);
    if (game == nullptr) {
        err << cmd.program << " serve: unknown game '" << name << "' (accepted: " << catalog.names() << ")\n";
        return exit_usage;
    }
    if (game->serve == nullptr) {
        err << cmd.program << ": this build has no server (it is built by the native g++ presets)\n";
        return exit_data;
    }
    return game->serve(args, out, err);
}

}  // namespace

const GameEntry* Catalog::find(std::string_view name) const {
    if (games.empty()) return nullptr;
    if (name.empty()) return &games.front();
    for (const GameEntry& g : games) {
        if (g.name == name) return &g;
    }
    return nullptr;
}

const GameEntry* Catalog::with_fingerprint(uint64_t fingerprint_hash) const {
    for (const GameEntry& g : games) {
        if (g.fingerprint_hash() == fingerprint_hash) return &g;
    }
    return nullptr;
}

std::string Catalog::names() const {
    std::string out;
    for (const GameEntry& g : games) {
        if (!out.empty()) out += ", ";
        out += g.name;
    }
    return out;
}

std::string json_string(std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (const char ch : text) {
        const auto u = static_cast<unsigned char>(ch);
        if (ch == '"' || ch == '\\') {
            out += '\\';
            out += ch;
        } else if (u < 0x20) {
            out += "\\u00";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

std::optional<std::vector<uint8_t>> read_file(const std::string& path, std::string_view what, std::string_view program,
                                              std::ostream& err) {
    std::ifstream in(path, std::ios::binary);
    std::optional<std::vector<uint8_t>> bytes;
    if (in) bytes.emplace(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.is_open() || in.bad()) {
        err << program << ": cannot read " << what << " '" << path << "'\n";
        return std::nullopt;
    }
    return bytes;
}

std::optional<uint64_t> parse_count(std::string_view text, uint64_t max) {
    if (text.empty() || text.size() > 20) return std::nullopt;
    uint64_t v = 0;
    for (char ch : text) {
        if (ch < '0' || ch > '9') return std::nullopt;
        const uint64_t digit = static_cast<uint64_t>(ch - '0');
        if (v > (max - digit) / 10) return std::nullopt;  // v * 10 + digit > max
        v = v * 10 + digit;
    }
    return v;
}

Result<WorldFile, WorldFileError> parse_world_file(std::string_view text) {
    WorldFile f;
    bool have_scenario = false, have_ticks = false;
    uint32_t line_number = 0;
    const auto bad = [&](const std::string& what) {
        return WorldFileError{"line " + std::to_string(line_number) + ": " + what +
                              " (accepted lines: 'game NAME', 'scenario NAME', 'ticks N', 'every K', 'expect TICK DIGEST', '# ...')"};
    };
    while (!text.empty()) {
        const size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        ++line_number;
        if (line.ends_with('\r')) line.remove_suffix(1);
        if (line.empty() || line[0] == '#') continue;
        const size_t space = line.find(' ');
        const std::string_view key = line.substr(0, space);
        const std::string_view value = space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
        if (key == "game" && f.game.empty() && !value.empty() && value.find(' ') == std::string_view::npos) {
            f.game = std::string(value);
        } else if (key == "scenario" && !have_scenario && !value.empty() && value.find(' ') == std::string_view::npos) {
            f.scenario = std::string(value);
            have_scenario = true;
        } else if (key == "ticks" && !have_ticks) {
            const auto v = parse_count(value, max_ticks);
            if (!v) return bad("ticks expects a whole number in 0.." + std::to_string(max_ticks));
            f.ticks = *v;
            have_ticks = true;
        } else if (key == "every") {
            const auto v = parse_count(value, max_ticks);
            if (!v || *v == 0) return bad("every expects a whole number in 1.." + std::to_string(max_ticks));
            f.every = *v;
        } else if (key == "expect") {
            const size_t gap = value.find(' ');
            const auto tick = parse_count(value.substr(0, gap), max_ticks);
            const auto digest = gap == std::string_view::npos ? std::nullopt : parse_hex64(value.substr(gap + 1));
            if (!tick || !digest) return bad("expect needs a tick and 16 hex digits");
            f.expect = WorldFile::Expect{*tick, *digest};
        } else {
            return bad("unexpected '" + std::string(line.substr(0, 40)) + "'");
        }
    }
    if (!have_scenario) return WorldFileError{"no 'scenario NAME' line"};
    if (!have_ticks) return WorldFileError{"no 'ticks N' line"};
    return f;
}

std::string help_text(const Catalog& catalog, std::string_view topic) {
    if (const CommandSpec* c = find_command(topic); c != nullptr && !topic.empty()) {
        std::string text = "usage: " + std::string(catalog.program) + " ";
        text += c->name;
        if (c->own_parser) text += " [OPTIONS]";
        if (!c->operand.empty()) {
            text += ' ';
            text += c->operand;
        }
        for (const FlagUse& u : c->flags) {
            text += u.required ? " " : " [";
            text += spec_of(u.flag).name;
            if (spec_of(u.flag).takes_value) {
                text += ' ';
                text += value_hint(u.flag);
            }
            if (!u.required) text += ']';
        }
        text += '\n';
        text += in_program(catalog, c->details);
        for (const FlagUse& u : c->flags) {
            if (u.flag == Flag::game) text += "  games: " + catalog.names() + " (default " + std::string(catalog.find("")->name) + ")\n";
            if (u.flag != Flag::scenario) continue;
            for (const GameEntry& g : catalog.games) text += "  " + std::string(g.name) + " scenarios: " + g.scenario_names() + "\n";
        }
        return text;
    }
    std::string text = "usage: " + std::string(catalog.program) + " COMMAND [OPTIONS]\ncommands:\n";
    for (const CommandSpec& c : command_specs) {
        std::string name(c.name);
        name.resize(std::max<size_t>(name.size() + 1, 11), ' ');
        text += "  " + name + in_program(catalog, c.summary) + "\n";
    }
    text += "  help [COMMAND], COMMAND --help   this text, or one command's\n"
            "exit status: 0 success, 1 bad data (a snapshot or replay refused, a file unreadable, a\n"
            "replay that disagrees with this build), 2 bad arguments\n";
    return text;
}

Result<Command, UsageError> parse(const Catalog& catalog, std::span<const std::string_view> args) {
    if (args.empty()) return usage("missing command (accepted: " + command_names() + ", help)");
    const std::string_view head = args[0];
    const auto rest = args.subspan(1);
    if (is_help_word(head)) {
        if (head != "help" || rest.empty()) return help_on(catalog, "");
        if (find_command(rest[0]) == nullptr) {
            return usage("no help for '" + std::string(rest[0]) + "' (accepted: " + command_names() + ")");
        }
        return help_on(catalog, find_command(rest[0])->name);
    }
    const CommandSpec* spec = find_command(head);
    if (spec == nullptr) {
        return usage("unknown command '" + std::string(head) + "' (accepted: " + command_names() + ", help)");
    }
    return parse_command(catalog, *spec, rest);
}

int run(const Catalog& catalog, std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    if (catalog.games.empty()) {
        err << catalog.program << ": this command ships no game\n";
        return exit_usage;
    }
    const auto parsed = parse(catalog, args);
    if (!parsed) {
        err << catalog.program << ": " << parsed.message() << "\n(try '" << catalog.program << " --help')\n";
        return exit_usage;
    }
    const Command& cmd = *parsed;
    switch (cmd.kind) {
    case CommandKind::help: out << help_text(catalog, cmd.topic); return exit_ok;
    case CommandKind::run: return command_run(catalog, cmd, out, err);
    case CommandKind::dump: return catalog.find(cmd.game)->dump(cmd, out);
    case CommandKind::snapshot: return catalog.find(cmd.game)->snapshot(cmd, out, err);
    case CommandKind::scenarios: catalog.find(cmd.game)->list_scenarios(out); return exit_ok;
    case CommandKind::games:
        for (const GameEntry& g : catalog.games) out << g.name << "  " << g.fingerprint() << "  " << g.description << '\n';
        return exit_ok;
    case CommandKind::serve: return command_serve(catalog, cmd, out, err);
    case CommandKind::ticket: {
        if (catalog.ticket == nullptr) {
            err << cmd.program << ": this build has no server (it is built by the native g++ presets)\n";
            return exit_data;
        }
        const std::vector<std::string_view> ticket_args(cmd.serve_args.begin(), cmd.serve_args.end());
        return catalog.ticket(ticket_args, out, err);
    }
    case CommandKind::replay: return command_replay(catalog, cmd, out, err);
    case CommandKind::version: {
        const GameEntry& g = *catalog.find(cmd.game);
        out << "tandem " << TANDEM_VERSION << "\nfingerprint " << g.fingerprint() << "\nsimulation_version "
            << g.simulation_version << '\n';
        return exit_ok;
    }
    }
    return exit_ok;
}

}  // namespace tandem::cli
