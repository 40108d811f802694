// The `tandem` commands: run (digest stream, from tick 0 or from a snapshot), dump (canonical
// state), snapshot (encoded world at a tick), replay (re-run a recorded match and check its
// digests), scenarios, version. Output is the contract the
// cross-build check diffs, so it must depend on nothing but the simulation: no timings, no
// locale, no host-dependent formatting. What the command line accepts is listed once, in the
// tables below; every message and help text is built from them.
#include "cli/cli.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <ostream>

#include "tandem/core/digest.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/world/scenario.hpp"
#include "tandem/world/world.hpp"
#ifdef TANDEM_HAVE_SERVER
#include "server/net_room.hpp"
#endif

#ifndef TANDEM_VERSION
#error "TANDEM_VERSION must come from CMake's PROJECT_VERSION (src/cli/CMakeLists.txt)"
#endif

namespace tandem::cli {

namespace {

using tandem::hex64;

constexpr uint64_t max_ticks = 100'000'000;

// ---- What the command line accepts ------------------------------------------------------

enum class Flag : uint8_t { scenario, ticks, every, format, from, tick, out, dump_at, world };

struct FlagSpec {
    Flag flag;
    std::string_view name;      // as typed
    std::string_view value;     // its value in a usage line ("" for --format: the format names)
    std::string_view expects;   // what a value must be ("" for --scenario, --format: the accepted names)
};
constexpr FlagSpec flag_specs[] = {
    {Flag::scenario, "--scenario", "NAME", ""},
    {Flag::ticks, "--ticks", "N", "a whole number of ticks"},
    {Flag::every, "--every", "K", "a whole number of ticks, at least 1"},
    {Flag::format, "--format", "", ""},
    {Flag::from, "--from", "FILE", "a snapshot file"},
    {Flag::tick, "--tick", "N", "a whole number of ticks"},
    {Flag::out, "--out", "FILE", "the file to write"},
    {Flag::dump_at, "--dump-at", "TICK", "a whole number of ticks"},
    {Flag::world, "--world", "FILE", "a world file (scenario and ticks; see 'tandem run --help')"},
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
constexpr FlagUse run_flags[] = {{Flag::scenario, false}, {Flag::world, false}, {Flag::ticks, false},
                                 {Flag::every, false},    {Flag::format, false}, {Flag::from, false}};
constexpr FlagUse dump_flags[] = {{Flag::scenario, true}, {Flag::tick, true}};
constexpr FlagUse snapshot_flags[] = {{Flag::scenario, true}, {Flag::tick, true}, {Flag::out, true}};
constexpr FlagUse replay_flags[] = {{Flag::dump_at, false}};

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
     "  Steps the scenario to tick N and prints the canonical state, one 'name value' line\n"
     "  per field in digest order (Fx as raw Q16.16 integers), for diffing two builds.\n"},
    {"snapshot", CommandKind::snapshot, {}, snapshot_flags, "write a scenario's snapshot at one tick",
     "  Steps the scenario to tick N, writes its snapshot (the world's encoded bytes, the\n"
     "  same the wasm build writes and reads) to FILE and prints 'N DIGEST'. Resume it with\n"
     "  'tandem run --scenario NAME --from FILE'. A file that cannot be written exits 1.\n"},
    {"scenarios", CommandKind::scenarios, {}, {}, "list the scenarios", "  Lists the scenarios with one line each.\n"},
    {"version", CommandKind::version, version_aliases, {}, "print the version and the snapshot fingerprint",
     "  Prints the version, the snapshot fingerprint (format, number format, simulation\n"
     "  version; the same string the wasm build reports) and the simulation version.\n"},
    {"serve", CommandKind::serve, {}, {}, "run the room and the page's server (tandem serve --help)",
     "  Runs the room and the page's server until a signal stops it (native g++ builds only).\n"
     "  Its options: tandem serve --help.\n",
     true},
    {"replay", CommandKind::replay, {}, replay_flags, "re-run a recorded match and check every digest",
     "  Reads a replay (what 'tandem serve --record FILE' writes, or a page's exported\n"
     "  replay), re-runs it from its first baseline and compares the digest after every\n"
     "  frame (and every later baseline) with this build's. Prints the ticks checked and\n"
     "  exits 0 when all agree; on the first mismatch prints its tick and, when the replay\n"
     "  holds the room's section digests there, the sections that differ (config, wells,\n"
     "  pellets, scores, rng), and exits 1. A file that is no replay, is cut short or was\n"
     "  written by another protocol or simulation exits 1 with the reason.\n"
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

std::string scenario_names() { return world::scenario_names_accepted(); }
std::string command_names() {
    return joined(command_specs, ", ", [](const CommandSpec& c) { return c.name; });
}

// What a flag's value must be, for messages: "accepted: a, b" or a phrase.
std::string expects(Flag flag) {
    if (flag == Flag::scenario) return "accepted: " + scenario_names();
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
std::optional<std::string> apply_flag(Flag flag, std::string_view value, Command& cmd) {
    const std::string_view name = spec_of(flag).name;
    switch (flag) {
    case Flag::scenario:
        if (auto found = world::find_scenario(value); !found) return std::string(found.message());
        cmd.scenario = std::string(value);
        return std::nullopt;
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
        return "unknown format '" + std::string(value) + "' (" + expects(flag) + ")";
    case Flag::from: cmd.from_path = std::string(value); return std::nullopt;
    case Flag::out: cmd.out_path = std::string(value); return std::nullopt;
    case Flag::dump_at: {
        uint64_t tick = 0;
        if (auto problem = check_count(name, value, 0, UINT64_MAX, tick)) return problem;
        cmd.dump_at = tick;
        return std::nullopt;
    }
    case Flag::world: cmd.world_path = std::string(value); return std::nullopt;
    }
    return std::nullopt;
}

Command help_on(std::string_view topic) {
    Command cmd;
    cmd.kind = CommandKind::help;
    cmd.topic = std::string(topic);
    return cmd;
}

// Reads "--flag value" and "--flag=value" for one command, against its row of the table.
Result<Command, UsageError> parse_command(const CommandSpec& spec, std::span<const std::string_view> rest) {
    Command cmd;
    cmd.kind = spec.kind;
    if (spec.own_parser) {
        cmd.serve_args.assign(rest.begin(), rest.end());
        return cmd;
    }
    std::vector<Flag> seen;
    for (size_t i = 0; i < rest.size();) {
        std::string_view arg = rest[i++];
        if (is_help_word(arg) && arg != "help") return help_on(spec.name);
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
        std::string_view value;
        if (inline_value) {
            value = *inline_value;
        } else if (i < rest.size() && !rest[i].starts_with("--")) {
            value = rest[i++];
        }
        if (value.empty()) return usage("missing value for " + std::string(arg) + " (" + expects(use->flag) + ")");
        if (auto problem = apply_flag(use->flag, value, cmd)) return usage(*problem);
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
                     expects(u.flag) + ")");
    }
    const auto given = [&](Flag f) { return std::find(seen.begin(), seen.end(), f) != seen.end(); };
    if (spec.kind == CommandKind::run) {
        if (given(Flag::world) && given(Flag::scenario)) return usage("run takes --scenario NAME or --world FILE, not both");
        if (given(Flag::world) && given(Flag::from)) return usage("run --world FILE starts at tick 0: --from is not accepted with it");
        if (!given(Flag::world) && !given(Flag::scenario)) {
            return usage("run needs --scenario NAME (" + expects(Flag::scenario) + ") or --world FILE");
        }
        cmd.ticks_given = given(Flag::ticks);
        cmd.every_given = given(Flag::every);
    }
    return cmd;
}

// ---- Output -----------------------------------------------------------------------------

// A JSON string literal. The names and the fingerprint are plain ASCII today; escaping keeps
// the document valid whatever a future name holds.
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

// The summary of a run, once for both formats. quoted: a phrase, quoted in text as in JSON;
// string: a JSON string that text prints bare (a name, a digest).
struct SummaryField {
    std::string_view name;
    std::string value;
    enum Kind : uint8_t { number, string, quoted } kind;
};
std::vector<SummaryField> summary_fields(const world::Scenario& s, const world::World& w) {
    return {{"scenario", std::string(s.name), SummaryField::string},
            {"ticks", std::to_string(w.tick), SummaryField::number},
            {"digest", hex64(world::digest(w)), SummaryField::string},
            {"captures", std::to_string(w.captures), SummaryField::number},
            {"wells", std::to_string(w.wells.size()), SummaryField::number},
            {"pellets", std::to_string(w.pellets.size()), SummaryField::number},
            {"fingerprint", world::fingerprint(), SummaryField::quoted}};
}

void print_summary_text(std::ostream& out, const world::Scenario& s, const world::World& w) {
    out << "summary";
    for (const SummaryField& f : summary_fields(s, w)) {
        out << ' ' << f.name << '=' << (f.kind == SummaryField::quoted ? json_string(f.value) : f.value);
    }
    out << '\n';
}

void print_summary_json(std::ostream& out, const world::Scenario& s, const world::World& w) {
    out << '{';
    bool first = true;
    for (const SummaryField& f : summary_fields(s, w)) {
        out << (first ? "" : ", ") << json_string(f.name) << ": "
            << (f.kind == SummaryField::number ? f.value : json_string(f.value));
        first = false;
    }
    out << '}';
}

// The world a run starts from: the scenario's tick 0, or a snapshot. A snapshot that does not
// decode, or that holds another scenario's world (its script would drive a world it was not
// written for), is a data error: the message names the decoder's reason.
// A whole file's bytes, or nothing (after saying so on err) when it cannot be read.
std::optional<std::vector<uint8_t>> read_file(const std::string& path, std::string_view what, std::ostream& err) {
    std::ifstream in(path, std::ios::binary);
    std::optional<std::vector<uint8_t>> bytes;
    if (in) bytes.emplace(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.is_open() || in.bad()) {
        err << "tandem: cannot read " << what << " '" << path << "'\n";
        return std::nullopt;
    }
    return bytes;
}

std::optional<world::World> starting_world(const Command& cmd, const world::Scenario& s, std::ostream& err) {
    if (cmd.from_path.empty()) return world::start(s);
    const auto bytes = read_file(cmd.from_path, "snapshot", err);
    if (!bytes) return std::nullopt;
    auto decoded = world::decode(*bytes);
    if (!decoded) {
        err << "tandem: snapshot '" << cmd.from_path << "' refused: " << decoded.code() << " (" << decoded.message()
            << ")\n";
        return std::nullopt;
    }
    if (!(decoded->config == s.config)) {
        err << "tandem: snapshot '" << cmd.from_path << "' refused: config_mismatch (it does not hold a world of scenario "
            << s.name << ")\n";
        return std::nullopt;
    }
    return std::move(decoded).value();
}

// A world file (written by the determinism check's shrinker): its scenario and ticks, with
// the command line's --ticks and --every taking precedence. Bad data exits 1.
std::optional<WorldFile> load_world_file(const Command& cmd, std::ostream& err) {
    std::ifstream in(cmd.world_path, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (!in.is_open() || in.bad()) {
        err << "tandem: cannot read world file '" << cmd.world_path << "'\n";
        return std::nullopt;
    }
    auto parsed = parse_world_file(text);
    if (!parsed) {
        err << "tandem: world file '" << cmd.world_path << "' refused: " << parsed.message() << '\n';
        return std::nullopt;
    }
    return std::move(parsed).value();
}

int command_run(const Command& given, std::ostream& out, std::ostream& err) {
    Command cmd = given;
    std::optional<WorldFile> file;
    if (!cmd.world_path.empty()) {
        file = load_world_file(cmd, err);
        if (!file) return exit_data;
        cmd.scenario = file->scenario;
        if (!cmd.ticks_given) cmd.ticks = file->ticks;
        if (!cmd.every_given) cmd.every = file->every;
    }
    const auto found = world::find_scenario(cmd.scenario);
    if (!found) {   // only a world file's name can get here: --scenario was checked when parsed
        err << "tandem: world file '" << cmd.world_path << "' refused: " << found.message() << '\n';
        return exit_data;
    }
    const world::Scenario& s = *found;
    std::optional<world::World> start = starting_world(cmd, s, err);
    if (!start) return exit_data;
    world::World& w = *start;
    if (w.tick > UINT64_MAX - cmd.ticks) {
        err << "tandem: snapshot '" << cmd.from_path << "' refused: its tick " << w.tick << " leaves no room for "
            << cmd.ticks << " more\n";
        return exit_data;
    }
    // From tick 0, --ticks is both the count and the last tick; from a snapshot at tick T the
    // run steps --ticks more, to T + N. Points fall on multiples of --every either way, so a
    // resumed stream lines up with the fresh one.
    const bool json = cmd.format == Format::json;
    if (json) out << "{\n  \"scenario\": " << json_string(s.name) << ",\n  \"stream\": [";
    bool first = true;
    std::optional<uint64_t> expected_seen;   // the digest at the world file's expect tick
    world::digest_stream(s, w, cmd.ticks, cmd.every, [&](const world::StreamPoint& p) {
        if (file && file->expect && p.tick == file->expect->tick) expected_seen = p.digest;
        if (json) {
            out << (first ? "\n    " : ",\n    ") << "{\"tick\": " << p.tick << ", \"digest\": \"" << hex64(p.digest)
                << "\"}";
        } else {
            out << p.tick << ' ' << hex64(p.digest) << '\n';
        }
        first = false;
    });
    if (json) {
        out << "\n  ],\n  \"summary\": ";
        print_summary_json(out, s, w);
        out << "\n}\n";
    } else {
        print_summary_text(out, s, w);
    }
    if (file && file->expect) {
        const WorldFile::Expect& e = *file->expect;
        if (!expected_seen) {
            err << "tandem: world file '" << cmd.world_path << "': the run did not print tick " << e.tick
                << " (its 'expect' line); check --ticks and --every\n";
            return exit_data;
        }
        if (*expected_seen != e.digest) {
            err << "tandem: tick " << e.tick << " digest " << hex64(*expected_seen) << " differs from "
                << hex64(e.digest) << ", the reference build's recorded in '" << cmd.world_path << "'\n";
            return exit_data;
        }
        err << "tandem: tick " << e.tick << " digest " << hex64(e.digest) << " matches the reference's recorded in '"
            << cmd.world_path << "'\n";
    }
    return exit_ok;
}

world::World world_at(const world::Scenario& s, uint64_t tick) {
    world::World w = world::start(s);
    world::advance(s, w, tick);
    return w;
}

int command_snapshot(const Command& cmd, std::ostream& out, std::ostream& err) {
    const world::World w = world_at(world::find_scenario(cmd.scenario).value(), cmd.tick);
    const std::vector<uint8_t> bytes = world::encode(w);
    std::ofstream file(cmd.out_path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    file.close();
    if (!file) {
        err << "tandem: cannot write snapshot '" << cmd.out_path << "'\n";
        return exit_data;
    }
    out << w.tick << ' ' << hex64(world::digest(w)) << '\n';
    return exit_ok;
}

int command_dump(const Command& cmd, std::ostream& out) {
    const world::Scenario s = world::find_scenario(cmd.scenario).value();   // checked when parsed
    out << "scenario " << s.name << '\n' << world::dump(world_at(s, cmd.tick));  // ends with the digest lines
    return exit_ok;
}

// `replay FILE`: re-run and check, or (--dump-at) print the re-run state at a tick.
int command_replay(const Command& cmd, std::ostream& out, std::ostream& err) {
    const auto bytes = read_file(cmd.operand, "replay", err);
    if (!bytes) return exit_data;
    const auto replay = net::read_replay(*bytes);
    if (!replay) {
        err << "tandem: replay '" << cmd.operand << "' refused: " << replay.code() << ": " << replay.message() << "\n";
        return exit_data;
    }
    if (cmd.dump_at) {
        const auto w = net::replay_world_at(*replay, *cmd.dump_at);
        if (!w) {
            err << "tandem: --dump-at " << *cmd.dump_at << ": " << w.message() << "\n(try 'tandem replay --help')\n";
            return exit_usage;
        }
        out << world::dump(*w);  // ends with the digest lines
        return exit_ok;
    }
    const net::ReplayCheck check = net::check_replay(*replay);
    out << "replay ticks " << check.first_tick << " to " << check.last_tick << ": " << check.frames_checked
        << " frames, " << check.baselines_checked << " baselines checked, " << check.baselines_adopted
        << " adopted past a gap\n";
    if (!check.divergence) {
        out << "ok: every digest agrees with this build\n";
        return exit_ok;
    }
    const net::Divergence& d = *check.divergence;
    out << "mismatch at tick " << d.tick << ": the replay has digest " << hex64(d.expected_digest) << ", this build "
        << hex64(d.actual_digest) << '\n';
    if (!d.sections_known) {
        out << "sections: unknown (the replay holds no section digests for tick " << d.tick << ")\n";
    } else if (d.sections.empty()) {
        out << "sections: none differ (the frame's digest disagrees with its own tick's sections)\n";
    } else {
        out << "sections:";
        for (std::string_view name : d.sections) out << ' ' << name;
        out << '\n';
    }
    return exit_data;
}

// `serve` has its own flags and help (src/server); it runs until a signal stops it.
int command_serve(const Command& cmd, std::ostream& out, std::ostream& err) {
#ifdef TANDEM_HAVE_SERVER
    const std::vector<std::string_view> args(cmd.serve_args.begin(), cmd.serve_args.end());
    return server::serve_main(args, out, err);
#else
    (void)cmd;
    (void)out;
    err << "tandem: this build has no server (it is built by the native g++ presets)\n";
    return exit_data;
#endif
}

}  // namespace

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
                              " (accepted lines: 'scenario NAME', 'ticks N', 'every K', 'expect TICK DIGEST', '# ...')"};
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
        if (key == "scenario" && !have_scenario && !value.empty() && value.find(' ') == std::string_view::npos) {
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

std::string help_text(std::string_view topic) {
    if (const CommandSpec* c = find_command(topic); c != nullptr && !topic.empty()) {
        std::string text = "usage: tandem ";
        text += c->name;
        if (c->own_parser) text += " [OPTIONS]";
        if (!c->operand.empty()) {
            text += ' ';
            text += c->operand;
        }
        for (const FlagUse& u : c->flags) {
            text += u.required ? " " : " [";
            text += spec_of(u.flag).name;
            text += ' ';
            text += value_hint(u.flag);
            if (!u.required) text += ']';
        }
        text += '\n';
        text += c->details;
        for (const FlagUse& u : c->flags) {
            if (u.flag != Flag::scenario) continue;
            text += "  scenarios: ";
            text += scenario_names();
            text += '\n';
        }
        return text;
    }
    std::string text = "usage: tandem COMMAND [OPTIONS]\ncommands:\n";
    for (const CommandSpec& c : command_specs) {
        std::string name(c.name);
        name.resize(std::max<size_t>(name.size() + 1, 11), ' ');
        text += "  " + name + std::string(c.summary) + "\n";
    }
    text += "  help [COMMAND], COMMAND --help   this text, or one command's\n"
            "exit status: 0 success, 1 bad data (a snapshot or replay refused, a file unreadable, a\n"
            "replay that disagrees with this build), 2 bad arguments\n";
    return text;
}

Result<Command, UsageError> parse(std::span<const std::string_view> args) {
    if (args.empty()) return usage("missing command (accepted: " + command_names() + ", help)");
    const std::string_view head = args[0];
    const auto rest = args.subspan(1);
    if (is_help_word(head)) {
        if (head != "help" || rest.empty()) return help_on("");
        if (find_command(rest[0]) == nullptr) {
            return usage("no help for '" + std::string(rest[0]) + "' (accepted: " + command_names() + ")");
        }
        return help_on(find_command(rest[0])->name);
    }
    const CommandSpec* spec = find_command(head);
    if (spec == nullptr) {
        return usage("unknown command '" + std::string(head) + "' (accepted: " + command_names() + ", help)");
    }
    return parse_command(*spec, rest);
}

int run(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    const auto parsed = parse(args);
    if (!parsed) {
        err << "tandem: " << parsed.message() << "\n(try 'tandem --help')\n";
        return exit_usage;
    }
    const Command& cmd = *parsed;
    switch (cmd.kind) {
    case CommandKind::help: out << help_text(cmd.topic); return exit_ok;
    case CommandKind::run: return command_run(cmd, out, err);
    case CommandKind::dump: return command_dump(cmd, out);
    case CommandKind::snapshot: return command_snapshot(cmd, out, err);
    case CommandKind::scenarios:
        for (const world::Scenario& s : world::scenarios()) out << s.name << "  " << s.description << '\n';
        return exit_ok;
    case CommandKind::serve: return command_serve(cmd, out, err);
    case CommandKind::replay: return command_replay(cmd, out, err);
    case CommandKind::version:
        out << "tandem " << TANDEM_VERSION << "\nfingerprint " << world::fingerprint() << "\nsimulation_version "
            << world::simulation_version << '\n';
        return exit_ok;
    }
    return exit_ok;
}

}  // namespace tandem::cli
