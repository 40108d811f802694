// The commands for one game, written once over the seam (tandem/sim) and instantiated by
// make_game_entry<G> for each game a command ships (the `tandem` command's list, a game's own
// command): run (a digest stream from tick 0 or from a snapshot), dump (canonical state),
// snapshot, replay (re-run a recorded match and check every digest, down to the field where
// the replay holds a state). Output is the contract the cross-build check diffs, so it depends
// on nothing but the simulation.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tandem/cli/command_line.hpp"
#include "tandem/core/digest.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/sim/scenario.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::cli {

namespace detail {

// A summary line's field. quoted: a phrase, quoted in text as in JSON; string: a JSON string
// that text prints bare (a name, a digest).
struct SummaryField {
    std::string_view name;
    std::string value;
    enum Kind : uint8_t { number, string, quoted } kind;
};

// A game may add counts of its own to a run's summary (the arena: captures, wells, pellets):
//   static std::vector<std::pair<std::string_view, uint64_t>> summary(const State&);
template <class G>
concept Summarised = requires(const typename G::State& s) {
    { G::summary(s) } -> std::convertible_to<std::vector<std::pair<std::string_view, uint64_t>>>;
};

template <class G>
std::vector<SummaryField> summary_fields(const typename G::Scenario& s, const typename G::State& state) {
    std::vector<SummaryField> fields = {{"scenario", std::string(s.name), SummaryField::string},
                                        {"ticks", std::to_string(G::tick(state)), SummaryField::number},
                                        {"digest", hex64(sim::digest<G>(state)), SummaryField::string}};
    if constexpr (Summarised<G>) {
        for (const auto& [name, value] : G::summary(state)) fields.push_back({name, std::to_string(value), SummaryField::number});
    }
    fields.push_back({"fingerprint", sim::fingerprint<G>(), SummaryField::quoted});
    return fields;
}

template <class G>
void print_summary(std::ostream& out, const typename G::Scenario& s, const typename G::State& state, bool json) {
    if (json) {
        out << '{';
        bool first = true;
        for (const SummaryField& f : summary_fields<G>(s, state)) {
            out << (first ? "" : ", ") << json_string(f.name) << ": "
                << (f.kind == SummaryField::number ? f.value : json_string(f.value));
            first = false;
        }
        out << '}';
        return;
    }
    out << "summary";
    for (const SummaryField& f : summary_fields<G>(s, state)) {
        out << ' ' << f.name << '=' << (f.kind == SummaryField::quoted ? json_string(f.value) : f.value);
    }
    out << '\n';
}

// The state a run starts from: the scenario's tick 0, or a snapshot. A snapshot that does not
// decode, or that holds another scenario's state (its script would drive a state it was not
// written for), is a data error naming the decoder's reason.
template <class G>
std::optional<typename G::State> starting_state(const Command& cmd, const typename G::Scenario& s, std::ostream& err) {
    if (cmd.from_path.empty()) return G::start(s);
    const auto bytes = read_file(cmd.from_path, "snapshot", cmd.program, err);
    if (!bytes) return std::nullopt;
    auto decoded = sim::decode_snapshot<G>(*bytes);
    if (!decoded) {
        err << cmd.program << ": snapshot '" << cmd.from_path << "' refused: " << decoded.code() << " (" << decoded.message()
            << ")\n";
        return std::nullopt;
    }
    if (!(G::config_of(*decoded) == G::config_of(G::start(s)))) {
        err << cmd.program << ": snapshot '" << cmd.from_path << "' refused: config_mismatch (it does not hold a state of scenario "
            << s.name << ")\n";
        return std::nullopt;
    }
    return std::move(decoded).value();
}

// Test-only fault injection for the cross-build determinism check, for any game: a CLI
// configured with -DTANDEM_PERTURB_TICK=T -DTANDEM_PERTURB_FIELD=PATH (src/cli/CMakeLists.txt)
// flips the lowest bit of the field at PATH (as `tandem dump` names it) right after tick T is
// stepped, in every run and dump, so the check can prove it names that tick and that field.
// A PATH the game's state does not have stops the command (exit 1) rather than perturb nothing.
// Compiled to nothing otherwise.
template <class G>
void after_step(typename G::State& state) {
#if defined(TANDEM_PERTURB_TICK)
    if (G::tick(state) != static_cast<uint64_t>(TANDEM_PERTURB_TICK)) return;
    if (!sim::perturb_field<G>(state, TANDEM_PERTURB_FIELD)) {
        std::fprintf(stderr, "tandem: TANDEM_PERTURB_FIELD '%s' is no field of %s's state at tick %llu\n",
                     TANDEM_PERTURB_FIELD, std::string(G::name).c_str(), static_cast<unsigned long long>(G::tick(state)));
        std::exit(exit_data);
    }
#else
    (void)state;
#endif
}

template <class G>
typename G::State state_at(const typename G::Scenario& s, uint64_t tick) {
    typename G::State state = G::start(s);
    typename G::Stepper stepper;
    sim::advance<G>(s, state, tick, stepper, after_step<G>);
    return state;
}

}  // namespace detail

template <sim::Scripted G>
int command_run(const Command& cmd, const std::optional<WorldFile>& file, std::ostream& out, std::ostream& err) {
    const auto found = G::find_scenario(cmd.scenario);
    if (!found) {   // only a world file's name can get here: --scenario was checked when parsed
        err << cmd.program << ": world file '" << cmd.world_path << "' refused: " << found.message() << '\n';
        return exit_data;
    }
    const typename G::Scenario& s = *found;
    std::optional<typename G::State> start = detail::starting_state<G>(cmd, s, err);
    if (!start) return exit_data;
    typename G::State& state = *start;
    if (G::tick(state) > UINT64_MAX - cmd.ticks) {
        err << cmd.program << ": snapshot '" << cmd.from_path << "' refused: its tick " << G::tick(state) << " leaves no room for "
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
    sim::digest_stream<G>(s, state, cmd.ticks, cmd.every, [&](const sim::StreamPoint& p) {
        if (file && file->expect && p.tick == file->expect->tick) expected_seen = p.digest;
        if (json) {
            out << (first ? "\n    " : ",\n    ") << "{\"tick\": " << p.tick << ", \"digest\": \"" << hex64(p.digest)
                << "\"}";
        } else {
            out << p.tick << ' ' << hex64(p.digest) << '\n';
        }
        first = false;
    }, detail::after_step<G>);
    if (json) {
        out << "\n  ],\n  \"summary\": ";
        detail::print_summary<G>(out, s, state, true);
        out << "\n}\n";
    } else {
        detail::print_summary<G>(out, s, state, false);
    }
    if (file && file->expect) {
        const WorldFile::Expect& e = *file->expect;
        if (!expected_seen) {
            err << cmd.program << ": world file '" << cmd.world_path << "': the run did not print tick " << e.tick
                << " (its 'expect' line); check --ticks and --every\n";
            return exit_data;
        }
        if (*expected_seen != e.digest) {
            err << cmd.program << ": tick " << e.tick << " digest " << hex64(*expected_seen) << " differs from "
                << hex64(e.digest) << ", the reference build's recorded in '" << cmd.world_path << "'\n";
            return exit_data;
        }
        err << cmd.program << ": tick " << e.tick << " digest " << hex64(e.digest) << " matches the reference's recorded in '"
            << cmd.world_path << "'\n";
    }
    return exit_ok;
}

template <sim::Scripted G>
int command_snapshot(const Command& cmd, std::ostream& out, std::ostream& err) {
    const typename G::State state = detail::state_at<G>(G::find_scenario(cmd.scenario).value(), cmd.tick);
    const std::vector<uint8_t> bytes = sim::encode_snapshot<G>(state);
    std::ofstream file(cmd.out_path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    file.close();
    if (!file) {
        err << cmd.program << ": cannot write snapshot '" << cmd.out_path << "'\n";
        return exit_data;
    }
    out << G::tick(state) << ' ' << hex64(sim::digest<G>(state)) << '\n';
    return exit_ok;
}

template <sim::Scripted G>
int command_dump(const Command& cmd, std::ostream& out) {
    const typename G::Scenario s = G::find_scenario(cmd.scenario).value();   // checked when parsed
    out << "scenario " << s.name << '\n' << sim::dump<G>(detail::state_at<G>(s, cmd.tick));  // ends with the digests
    return exit_ok;
}

// `replay FILE`: re-run and check, or (--dump-at) print the re-run state at a tick.
template <sim::Simulation G>
int command_replay(const Command& cmd, std::span<const uint8_t> bytes, std::ostream& out, std::ostream& err) {
    auto replay = net::read_replay<G>(bytes);
    // A cut inside a record: the records before it are the file's whole records, read as a file
    // cut short after them (the fault's offset is the cut record's first byte).
    std::string cut = "after its last whole record";
    if (!replay && replay.error().error == net::ReplayError::truncated && replay.error().offset >= net::replay_header_bytes) {
        cut = "inside record " + std::to_string(replay.error().record) + " at byte " + std::to_string(replay.error().offset) +
              " (of " + std::to_string(bytes.size()) + ")";
        replay = net::read_replay<G>(bytes.first(static_cast<size_t>(replay.error().offset)));
    }
    if (!replay) {
        err << cmd.program << ": replay '" << cmd.operand << "' refused: " << replay.code() << ": " << replay.message() << "\n";
        return exit_data;
    }
    if (replay->end == net::ReplayEnd::cut_short) {
        const net::ReplayCoverage covered = net::replay_coverage(*replay);
        const std::string what = "truncated: no end marker (cut " + cut + "); the last tick it covers is " +
                                 std::to_string(covered.last) + " (ticks " + std::to_string(covered.first.value_or(0)) +
                                 " to " + std::to_string(covered.last) + ")";
        if (!cmd.allow_truncated) {
            err << cmd.program << ": replay '" << cmd.operand << "' " << what
                << " (--allow-truncated checks what it holds)\n";
            return exit_data;
        }
        // Said before anything else, so no reader of the output takes the check for the whole match's.
        (cmd.dump_at ? err : out) << what << "; checking what it holds\n";
    }
    if (cmd.dump_at) {
        const auto state = net::replay_state_at<G>(*replay, *cmd.dump_at);
        if (!state) {
            err << cmd.program << ": --dump-at " << *cmd.dump_at << ": " << state.message() << "\n(try '" << cmd.program << " replay --help')\n";
            return exit_usage;
        }
        out << sim::dump<G>(*state);  // ends with the digest lines
        return exit_ok;
    }
    const net::ReplayCheck check = net::check_replay<G>(*replay);
    out << "replay of " << G::name << ", ticks " << check.first_tick << " to " << check.last_tick << ": "
        << check.frames_checked << " frames, " << check.baselines_checked << " baselines checked, "
        << check.baselines_adopted << " adopted past a gap\n";
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
    if (d.fields) {
        out << "fields at tick " << d.fields_tick << " (the replay's state there against this build's; "
            << d.fields->total << " differ):\n";
        for (const sim::FieldDifference& f : d.fields->differences) out << "  " << sim::to_string(f) << '\n';
        if (d.fields->total > d.fields->differences.size()) {
            out << "  ... " << (d.fields->total - d.fields->differences.size()) << " more\n";
        }
    } else {
        out << "fields: unknown (the replay holds no state at or after tick " << d.tick << ")\n";
    }
    return exit_data;
}

template <sim::Scripted G>
GameEntry make_game_entry(std::string_view description) {
    GameEntry e;
    e.name = G::name;
    e.description = description;
    e.fingerprint = &sim::fingerprint<G>;
    e.fingerprint_hash = [] { return sim::fingerprint_hash<G>(); };
    e.simulation_version = G::version;
    e.scenario_names = [] { return std::string(G::scenario_names_accepted()); };
    e.scenario_problem = [](std::string_view name) -> std::optional<std::string> {
        auto found = G::find_scenario(name);
        if (found) return std::nullopt;
        return std::string(found.message());
    };
    e.list_scenarios = [](std::ostream& out) {
        for (const typename G::Scenario& s : G::scenarios()) out << s.name << "  " << s.description << '\n';
    };
    e.run = &command_run<G>;
    e.dump = &command_dump<G>;
    e.snapshot = &command_snapshot<G>;
    e.replay = &command_replay<G>;
    return e;
}

}  // namespace tandem::cli
