// The `tandem` commands: run (digest stream), dump (canonical state), scenarios, version.
// Output is the contract the cross-build check diffs, so it must depend on nothing but the
// simulation: no timings, no locale, no host-dependent formatting.
#include "cli/cli.hpp"

#include <ostream>

#include "world/scenario.hpp"
#include "world/world.hpp"

namespace tandem::cli {

namespace {

constexpr uint64_t max_ticks = 100'000'000;

std::string hex16(uint64_t v) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i) {
        s[static_cast<unsigned>(i)] = digits[v & 0xF];
        v >>= 4;
    }
    return s;
}

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

ParseResult parse_run_or_dump(CommandKind kind, std::span<const std::string_view> rest) {
    Command cmd;
    cmd.kind = kind;
    const std::string_view name = kind == CommandKind::run ? "run" : "dump";
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
        } else if (kind == CommandKind::dump && flag == "--tick") {
            const auto v = value();
            if (!v) return failure(r.error + " (a whole number of ticks)");
            if (auto e = check_count(flag, *v, 0, max_ticks, cmd.tick)) return failure(*e);
            have_tick = true;
        } else {
            const std::string accepted = kind == CommandKind::run ? "--scenario, --ticks, --every, --format, --help"
                                                                  : "--scenario, --tick, --help";
            return failure("unknown argument '" + std::string(flag) + "' for " + std::string(name) +
                           " (accepted: " + accepted + ")");
        }
    }
    if (cmd.scenario.empty()) {
        return failure(std::string(name) + " needs --scenario NAME (accepted: " + scenario_names() + ")");
    }
    if (kind == CommandKind::dump && !have_tick) return failure("dump needs --tick N (a whole number of ticks)");
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
    out << "summary scenario=" << s.name << " ticks=" << w.tick << " digest=" << hex16(world::digest(w))
        << " captures=" << w.captures << " wells=" << w.wells.size() << " pellets=" << w.pellets.size()
        << " fingerprint=\"" << world::fingerprint() << "\"\n";
}

int command_run(const Command& cmd, std::ostream& out) {
    const world::Scenario& s = *world::find_scenario(cmd.scenario);
    world::World w = world::start(s);
    const bool json = cmd.format == Format::json;
    bool first = true;
    auto emit = [&](const world::World& at) {
        const std::string d = hex16(world::digest(at));
        if (json) {
            out << (first ? "\n    " : ",\n    ") << "{\"tick\": " << at.tick << ", \"digest\": \"" << d << "\"}";
        } else {
            out << at.tick << ' ' << d << '\n';
        }
        first = false;
    };
    if (json) out << "{\n  \"scenario\": \"" << s.name << "\",\n  \"fingerprint\": \"" << world::fingerprint()
                  << "\",\n  \"stream\": [";
    emit(w);
    while (w.tick < cmd.ticks) {
        world::advance(s, w, 1);
        if (w.tick % cmd.every == 0 || w.tick == cmd.ticks) emit(w);
    }
    if (json) {
        out << "\n  ],\n  \"summary\": {\"ticks\": " << w.tick << ", \"digest\": \"" << hex16(world::digest(w))
            << "\", \"captures\": " << w.captures << ", \"wells\": " << w.wells.size()
            << ", \"pellets\": " << w.pellets.size() << "}\n}\n";
    } else {
        print_summary_text(out, s, w);
    }
    return exit_ok;
}

int command_dump(const Command& cmd, std::ostream& out) {
    const world::Scenario& s = *world::find_scenario(cmd.scenario);
    world::World w = world::start(s);
    world::advance(s, w, cmd.tick);
    out << "scenario " << s.name << '\n' << world::dump(w);
    out << "digest " << hex16(world::digest(w)) << '\n';
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
        return "usage: tandem run --scenario NAME [--ticks N] [--every K] [--format text|json]\n"
               "  Steps the scenario N ticks (default 2000) and prints the state digest at tick 0,\n"
               "  every K ticks (default 100) and at the last tick: text prints 'TICK DIGEST' lines\n"
               "  (16 lowercase hex digits) then a 'summary ...' line; json prints one object with\n"
               "  \"stream\" (an array of {tick, digest}) and \"summary\".\n"
               "  scenarios: " + scenario_names() + "\n";
    }
    if (topic == "dump") {
        return "usage: tandem dump --scenario NAME --tick N\n"
               "  Steps the scenario to tick N and prints the canonical state, one 'name value' line\n"
               "  per field in digest order (Fx as raw Q16.16 integers), for diffing two builds.\n"
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
           "  scenarios  list the scenarios\n"
           "  version    print the version and the snapshot fingerprint\n"
           "  help [COMMAND], COMMAND --help   this text, or one command's\n"
           "exit status: 0 success, 2 bad arguments\n";
}

ParseResult parse(std::span<const std::string_view> args) {
    if (args.empty()) return failure("missing command (accepted: run, dump, scenarios, version, help)");
    const std::string_view head = args[0];
    const auto rest = args.subspan(1);
    if (head == "--help" || head == "-h" || head == "help") {
        Command cmd;
        cmd.kind = CommandKind::help;
        if (head == "help" && !rest.empty()) {
            const std::string_view t = rest[0];
            if (t != "run" && t != "dump" && t != "scenarios" && t != "version") {
                return failure("no help for '" + std::string(t) + "' (accepted: run, dump, scenarios, version)");
            }
            cmd.topic = std::string(t);
        }
        return ParseResult{cmd, {}};
    }
    if (head == "run") return parse_run_or_dump(CommandKind::run, rest);
    if (head == "dump") return parse_run_or_dump(CommandKind::dump, rest);
    if (head == "scenarios") return parse_plain(CommandKind::scenarios, "scenarios", rest);
    if (head == "version" || head == "--version" || head == "fingerprint") {
        return parse_plain(CommandKind::version, "version", rest);
    }
    return failure("unknown command '" + std::string(head) + "' (accepted: run, dump, scenarios, version, help)");
}

int run(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    const ParseResult parsed = parse(args);
    if (!parsed.command) {
        err << "tandem: " << parsed.error << "\n(try 'tandem --help')\n";
        return exit_usage;
    }
    const Command& cmd = *parsed.command;
    switch (cmd.kind) {
    case CommandKind::help: out << help_text(cmd.topic); return exit_ok;
    case CommandKind::run: return command_run(cmd, out);
    case CommandKind::dump: return command_dump(cmd, out);
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
