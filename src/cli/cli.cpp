// The `tandem` commands: run (digest stream, from tick 0 or from a snapshot), dump (canonical
// state), snapshot (encoded world at a tick), scenarios, version. Output is the contract the
// cross-build check diffs, so it must depend on nothing but the simulation: no timings, no
// locale, no host-dependent formatting.
#include "cli/cli.hpp"

#include <fstream>
#include <iterator>
#include <ostream>

#include "tandem/core/digest.hpp"
#include "tandem/world/scenario.hpp"
#include "tandem/world/world.hpp"
#ifdef TANDEM_HAVE_SERVER
#include "server/net_room.hpp"
#endif

namespace tandem::cli {

namespace {

using tandem::hex64;

constexpr uint64_t max_ticks = 100'000'000;

std::string scenario_names() {
    std::string names;
    for (const world::Scenario& s : world::scenarios()) {
        if (!names.empty()) names += ", ";
        names += s.name;
    }
    return names;
}

ParseResult failure(std::string message) { return ParseResult{std::nullopt, std::move(message)}; }

// Splits "--flag=value" and "--flag value"; reports a missing value by name.
struct FlagReader {
    std::span<const std::string_view> args;
    size_t i = 0;
    std::string error;

    bool done() const { return i >= args.size(); }
    // Returns the flag name and fills value (which may come from the next argument).
    std::string_view next(std::optional<std::string_view>& value) {
        std::string_view a = args[i++];
        value.reset();
        const size_t eq = a.find('=');
        if (a.starts_with("--") && eq != std::string_view::npos) {
            value = a.substr(eq + 1);
            return a.substr(0, eq);
        }
        return a;
    }
    std::optional<std::string_view> take_value(std::string_view flag, std::optional<std::string_view> inline_value) {
        if (inline_value) return inline_value;
        if (done() || args[i].starts_with("--")) {
            error = "missing value for " + std::string(flag);
            return std::nullopt;
        }
        return args[i++];
    }
};

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

// run, dump and snapshot share their flags' spelling; each accepts its own subset.
ParseResult parse_scenario_command(CommandKind kind, std::span<const std::string_view> rest) {
    Command cmd;
    cmd.kind = kind;
    const std::string_view name = kind == CommandKind::run ? "run" : kind == CommandKind::dump ? "dump" : "snapshot";
    const bool takes_tick = kind == CommandKind::dump || kind == CommandKind::snapshot;
    FlagReader r{rest, 0, {}};
    bool have_tick = false;
    while (!r.done()) {
        std::optional<std::string_view> inline_value;
        const std::string_view flag = r.next(inline_value);
        if (flag == "--help" || flag == "-h") {
            cmd.kind = CommandKind::help;
            cmd.topic = std::string(name);
            return ParseResult{cmd, {}};
        }
        auto value = [&]() { return r.take_value(flag, inline_value); };
        if (flag == "--scenario") {
            const auto v = value();
            if (!v) return failure(r.error + " (accepted: " + scenario_names() + ")");
            if (!world::find_scenario(*v)) {
                return failure("unknown scenario '" + std::string(*v) + "' (accepted: " + scenario_names() + ")");
            }
            cmd.scenario = std::string(*v);
        } else if (kind == CommandKind::run && flag == "--ticks") {
            const auto v = value();
            if (!v) return failure(r.error + " (a whole number of ticks)");
            if (auto e = check_count(flag, *v, 0, max_ticks, cmd.ticks)) return failure(*e);
        } else if (kind == CommandKind::run && flag == "--every") {
            const auto v = value();
            if (!v) return failure(r.error + " (a whole number of ticks, at least 1)");
            if (auto e = check_count(flag, *v, 1, max_ticks, cmd.every)) return failure(*e);
        } else if (kind == CommandKind::run && flag == "--format") {
            const auto v = value();
            if (!v) return failure(r.error + " (accepted: text, json)");
            if (*v == "text") cmd.format = Format::text;
            else if (*v == "json") cmd.format = Format::json;
            else return failure("unknown format '" + std::string(*v) + "' (accepted: text, json)");
        } else if (kind == CommandKind::run && flag == "--from") {
            const auto v = value();
            if (!v || v->empty()) return failure("missing value for --from (a snapshot file)");
            cmd.from_path = std::string(*v);
        } else if (takes_tick && flag == "--tick") {
            const auto v = value();
            if (!v) return failure(r.error + " (a whole number of ticks)");
            if (auto e = check_count(flag, *v, 0, max_ticks, cmd.tick)) return failure(*e);
            have_tick = true;
        } else if (kind == CommandKind::snapshot && flag == "--out") {
            const auto v = value();
            if (!v || v->empty()) return failure("missing value for --out (the file to write)");
            cmd.out_path = std::string(*v);
        } else {
            const std::string accepted = kind == CommandKind::run    ? "--scenario, --ticks, --every, --format, --from, --help"
                                         : kind == CommandKind::dump ? "--scenario, --tick, --help"
                                                                     : "--scenario, --tick, --out, --help";
            return failure("unknown argument '" + std::string(flag) + "' for " + std::string(name) +
                           " (accepted: " + accepted + ")");
        }
    }
    if (cmd.scenario.empty()) {
        return failure(std::string(name) + " needs --scenario NAME (accepted: " + scenario_names() + ")");
    }
    if (takes_tick && !have_tick) return failure(std::string(name) + " needs --tick N (a whole number of ticks)");
    if (kind == CommandKind::snapshot && cmd.out_path.empty()) return failure("snapshot needs --out FILE");
    return ParseResult{cmd, {}};
}

ParseResult parse_plain(CommandKind kind, std::string_view name, std::span<const std::string_view> rest) {
    Command cmd;
    cmd.kind = kind;
    for (std::string_view a : rest) {
        if (a == "--help" || a == "-h") {
            cmd.kind = CommandKind::help;
            cmd.topic = std::string(name);
            return ParseResult{cmd, {}};
        }
        return failure("unknown argument '" + std::string(a) + "' for " + std::string(name) + " (accepted: --help)");
    }
    return ParseResult{cmd, {}};
}

void print_summary_text(std::ostream& out, const world::Scenario& s, const world::World& w) {
    out << "summary scenario=" << s.name << " ticks=" << w.tick << " digest=" << hex64(world::digest(w))
        << " captures=" << w.captures << " wells=" << w.wells.size() << " pellets=" << w.pellets.size()
        << " fingerprint=\"" << world::fingerprint() << "\"\n";
}

// The same fields as the text summary, as one JSON object on one line.
void print_summary_json(std::ostream& out, const world::Scenario& s, const world::World& w) {
    out << "{\"summary\": {\"scenario\": \"" << s.name << "\", \"ticks\": " << w.tick << ", \"digest\": \""
        << hex64(world::digest(w)) << "\", \"captures\": " << w.captures << ", \"wells\": " << w.wells.size()
        << ", \"pellets\": " << w.pellets.size() << ", \"fingerprint\": \"" << world::fingerprint() << "\"}}\n";
}

// The world a run starts from: the scenario's tick 0, or a snapshot. A snapshot that does not
// decode, or that holds another scenario's world (its script would drive a world it was not
// written for), is a data error: the message names the decoder's reason.
std::optional<world::World> starting_world(const Command& cmd, const world::Scenario& s, std::ostream& err) {
    if (cmd.from_path.empty()) return world::start(s);
    std::ifstream in(cmd.from_path, std::ios::binary);
    if (!in) {
        err << "tandem: cannot read snapshot '" << cmd.from_path << "'\n";
        return std::nullopt;
    }
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) {
        err << "tandem: cannot read snapshot '" << cmd.from_path << "'\n";
        return std::nullopt;
    }
    auto decoded = world::decode(bytes);
    if (!decoded.ok()) {
        err << "tandem: snapshot '" << cmd.from_path << "' refused: " << decoded.code() << '\n';
        return std::nullopt;
    }
    if (!(decoded->config == s.config)) {
        err << "tandem: snapshot '" << cmd.from_path << "' refused: config_mismatch (it does not hold a world of scenario "
            << s.name << ")\n";
        return std::nullopt;
    }
    return std::move(decoded).value();
}

int command_run(const Command& cmd, std::ostream& out, std::ostream& err) {
    const world::Scenario& s = *world::find_scenario(cmd.scenario);
    std::optional<world::World> start = starting_world(cmd, s, err);
    if (!start) return exit_data;
    world::World& w = *start;
    if (w.tick > UINT64_MAX - cmd.ticks) {
        err << "tandem: snapshot '" << cmd.from_path << "' refused: its tick " << w.tick << " leaves no room for "
            << cmd.ticks << " more\n";
        return exit_data;
    }
    // From tick 0, --ticks is both the count and the last tick; from a snapshot at tick T the
    // run steps --ticks more, to T + N. Lines fall on multiples of --every either way, so a
    // resumed stream lines up with the fresh one.
    const uint64_t last = w.tick + cmd.ticks;
    const bool json = cmd.format == Format::json;
    bool first = true;
    auto emit = [&](const world::World& at) {
        const std::string d = hex64(world::digest(at));
        if (json) {
            out << (first ? "[\n  " : ",\n  ") << "{\"tick\": " << at.tick << ", \"digest\": \"" << d << "\"}";
        } else {
            out << at.tick << ' ' << d << '\n';
        }
        first = false;
    };
    emit(w);
    while (w.tick < last) {
        world::advance(s, w, 1);
        if (w.tick % cmd.every == 0 || w.tick == last) emit(w);
    }
    if (json) {
        out << "\n]\n";
        print_summary_json(out, s, w);
    } else {
        print_summary_text(out, s, w);
    }
    return exit_ok;
}

int command_snapshot(const Command& cmd, std::ostream& out, std::ostream& err) {
    const world::Scenario& s = *world::find_scenario(cmd.scenario);
    world::World w = world::start(s);
    world::advance(s, w, cmd.tick);
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
    const world::Scenario& s = *world::find_scenario(cmd.scenario);
    world::World w = world::start(s);
    world::advance(s, w, cmd.tick);
    out << "scenario " << s.name << '\n' << world::dump(w);  // ends with the digest lines
    return exit_ok;
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

std::string help_text(std::string_view topic) {
    if (topic == "run") {
        return "usage: tandem run --scenario NAME [--ticks N] [--every K] [--format text|json] [--from FILE]\n"
               "  Steps the scenario N ticks (default 2000) and prints the state digest at the first\n"
               "  tick, at every multiple of K (default 100) and at the last tick. text prints\n"
               "  'TICK DIGEST' lines (16 lowercase hex digits) then a 'summary ...' line; json prints\n"
               "  a JSON array of {\"tick\", \"digest\"} objects, then the summary as one JSON object\n"
               "  on the last line ({\"summary\": {...}}).\n"
               "  --from FILE starts from a snapshot of the scenario's world (see 'tandem snapshot')\n"
               "  at its tick T instead of tick 0 and steps N more ticks, to T + N; a snapshot that\n"
               "  does not decode, or holds another scenario's world, exits 1 with the reason.\n"
               "  scenarios: " + scenario_names() + "\n";
    }
    if (topic == "dump") {
        return "usage: tandem dump --scenario NAME --tick N\n"
               "  Steps the scenario to tick N and prints the canonical state, one 'name value' line\n"
               "  per field in digest order (Fx as raw Q16.16 integers), for diffing two builds.\n"
               "  scenarios: " + scenario_names() + "\n";
    }
    if (topic == "snapshot") {
        return "usage: tandem snapshot --scenario NAME --tick T --out FILE\n"
               "  Steps the scenario to tick T, writes its snapshot (the world's encoded bytes, the\n"
               "  same the wasm build writes and reads) to FILE and prints 'T DIGEST'. Resume it with\n"
               "  'tandem run --scenario NAME --from FILE'. A file that cannot be written exits 1.\n"
               "  scenarios: " + scenario_names() + "\n";
    }
    if (topic == "scenarios") return "usage: tandem scenarios\n  Lists the scenarios with one line each.\n";
    if (topic == "version") {
        return "usage: tandem version\n  Prints the version and the snapshot fingerprint (format, number format,\n"
               "  simulation version), the same string the wasm build reports.\n";
    }
    return "usage: tandem COMMAND [OPTIONS]\n"
           "commands:\n"
           "  run        print a scenario's digest stream\n"
           "  dump       print a scenario's canonical state at one tick\n"
           "  snapshot   write a scenario's snapshot at one tick\n"
           "  scenarios  list the scenarios\n"
           "  version    print the version and the snapshot fingerprint\n"
           "  serve      run the room and the page's server (tandem serve --help)\n"
           "  help [COMMAND], COMMAND --help   this text, or one command's\n"
           "exit status: 0 success, 1 bad data (a snapshot refused, a file unreadable), 2 bad arguments\n";
}

ParseResult parse(std::span<const std::string_view> args) {
    if (args.empty()) return failure("missing command (accepted: run, dump, snapshot, scenarios, version, help)");
    const std::string_view head = args[0];
    const auto rest = args.subspan(1);
    if (head == "--help" || head == "-h" || head == "help") {
        Command cmd;
        cmd.kind = CommandKind::help;
        if (head == "help" && !rest.empty()) {
            const std::string_view t = rest[0];
            if (t != "run" && t != "dump" && t != "snapshot" && t != "scenarios" && t != "version") {
                return failure("no help for '" + std::string(t) + "' (accepted: run, dump, snapshot, scenarios, version)");
            }
            cmd.topic = std::string(t);
        }
        return ParseResult{cmd, {}};
    }
    if (head == "run") return parse_scenario_command(CommandKind::run, rest);
    if (head == "dump") return parse_scenario_command(CommandKind::dump, rest);
    if (head == "snapshot") return parse_scenario_command(CommandKind::snapshot, rest);
    if (head == "scenarios") return parse_plain(CommandKind::scenarios, "scenarios", rest);
    if (head == "version" || head == "--version" || head == "fingerprint") {
        return parse_plain(CommandKind::version, "version", rest);
    }
    return failure("unknown command '" + std::string(head) + "' (accepted: run, dump, snapshot, scenarios, version, help)");
}

int run(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    // `serve` has its own flags and help (src/server); it runs until a signal stops it.
    if (!args.empty() && args[0] == "serve") {
#ifdef TANDEM_HAVE_SERVER
        return server::serve_main(args.subspan(1), out, err);
#else
        err << "tandem: this build has no server (it is built by the native g++ presets)\n";
        return exit_data;
#endif
    }
    const ParseResult parsed = parse(args);
    if (!parsed.command) {
        err << "tandem: " << parsed.error << "\n(try 'tandem --help')\n";
        return exit_usage;
    }
    const Command& cmd = *parsed.command;
    switch (cmd.kind) {
    case CommandKind::help: out << help_text(cmd.topic); return exit_ok;
    case CommandKind::run: return command_run(cmd, out, err);
    case CommandKind::dump: return command_dump(cmd, out);
    case CommandKind::snapshot: return command_snapshot(cmd, out, err);
    case CommandKind::scenarios:
        for (const world::Scenario& s : world::scenarios()) out << s.name << "  " << s.description << '\n';
        return exit_ok;
    case CommandKind::version:
        out << "tandem 0.1.0\nfingerprint " << world::fingerprint() << '\n';
        return exit_ok;
    }
    return exit_ok;
}

}  // namespace tandem::cli
