// The shared random-world name grammar (tandem/sim/random_spec.hpp): strict decimals, each
// modifier once, and one message shape for every refusal.
#include "tandem/sim/random_spec.hpp"

namespace tandem::sim {

namespace {

// Strict decimal: digits only, at most `max`.
bool decimal(std::string_view text, uint64_t max, uint64_t& out) {
    if (text.empty() || text.size() > 20) return false;
    uint64_t v = 0;
    for (const char ch : text) {
        if (ch < '0' || ch > '9') return false;
        const auto digit = static_cast<uint64_t>(ch - '0');
        if (v > (max - digit) / 10) return false;
        v = v * 10 + digit;
    }
    out = v;
    return true;
}

SpecError spec_error(SpecError::Code code, std::string_view spec, const std::string& what, const RandomSpecGrammar& grammar) {
    // Appended piece by piece: "literal" + std::string trips GCC 12's false -Wrestrict
    // (bug 105329) in a -O2 build.
    std::string m = "random world '";
    m += spec;
    m += "': ";
    m += what;
    m += " (accepted: ";
    m += random_spec_syntax(grammar);
    m += "; CLASS one of ";
    for (size_t i = 0; i < grammar.classes.size(); ++i) {
        if (i > 0) m += ", ";
        m += grammar.classes[i];
    }
    m += ")";
    return SpecError{code, m};
}

}  // namespace

std::string_view error_name(const SpecError& error) {
    switch (error.code) {
    case SpecError::unknown_scenario: return "unknown_scenario";
    case SpecError::bad_seed: return "bad_seed";
    case SpecError::unknown_modifier: return "unknown_modifier";
    case SpecError::bad_value: return "bad_value";
    }
    return "bad_value";
}
std::string_view describe(const SpecError& error) { return error.message; }

std::string random_spec_syntax(const RandomSpecGrammar& grammar) {
    std::string s(random_prefix);
    s += "SEED";
    for (const CountModifier& m : grammar.counts) {
        s += "[:";
        s += m.key;
        s += "=N]";
    }
    if (!grammar.classes.empty()) s += "[:without=CLASS+...]";
    return s;
}

Result<RandomSpecValues, SpecError> parse_random_spec(std::string_view spec, const RandomSpecGrammar& grammar) {
    if (!spec.starts_with(random_prefix)) return spec_error(SpecError::bad_seed, spec, "it does not start with 'random:'", grammar);
    std::string_view rest = spec.substr(random_prefix.size());
    const size_t colon = rest.find(':');
    const std::string_view seed_text = rest.substr(0, colon);
    RandomSpecValues out;
    out.counts.assign(grammar.counts.size(), -1);
    if (!decimal(seed_text, UINT64_MAX, out.seed)) {
        return spec_error(SpecError::bad_seed, spec, "the seed '" + std::string(seed_text) + "' is not a decimal 64-bit number", grammar);
    }
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    bool seen_without = false;
    while (colon != std::string_view::npos) {
        const size_t next = rest.find(':');
        const std::string_view item = rest.substr(0, next);
        const size_t eq = item.find('=');
        const std::string_view key = item.substr(0, eq);
        const std::string_view value = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
        size_t count = 0;
        while (count < grammar.counts.size() && grammar.counts[count].key != key) ++count;
        if (count < grammar.counts.size() && out.counts[count] < 0) {
            const CountModifier& m = grammar.counts[count];
            uint64_t n = 0;
            if (!decimal(value, m.max, n)) {
                return spec_error(SpecError::bad_value, spec,
                                  std::string(m.key) + "='" + std::string(value) + "' is not a count 0.." + std::to_string(m.max), grammar);
            }
            out.counts[count] = static_cast<int64_t>(n);
        } else if (key == "without" && !grammar.classes.empty() && !seen_without) {
            std::string_view names = value;
            if (names.empty()) return spec_error(SpecError::bad_value, spec, "without= names no class", grammar);
            while (true) {
                const size_t plus = names.find('+');
                const std::string_view name = names.substr(0, plus);
                uint32_t bit = 0;
                while (bit < grammar.classes.size() && grammar.classes[bit] != name) ++bit;
                if (bit == grammar.classes.size()) {
                    return spec_error(SpecError::bad_value, spec, "unknown input class '" + std::string(name) + "'", grammar);
                }
                out.without |= 1u << bit;
                if (plus == std::string_view::npos) break;
                names = names.substr(plus + 1);
            }
            seen_without = true;
        } else {
            return spec_error(SpecError::unknown_modifier, spec, "unknown or repeated modifier '" + std::string(item) + "'", grammar);
        }
        if (next == std::string_view::npos) break;
        rest = rest.substr(next + 1);
    }
    return out;
}

std::string format_random_spec(const RandomSpecValues& values, const RandomSpecGrammar& grammar) {
    std::string s(random_prefix);
    s += std::to_string(values.seed);
    for (size_t i = 0; i < grammar.counts.size() && i < values.counts.size(); ++i) {
        if (values.counts[i] < 0) continue;
        s += ':';
        s += grammar.counts[i].key;
        s += '=';
        s += std::to_string(values.counts[i]);
    }
    if (values.without != 0) {
        s += ":without=";
        bool first = true;
        for (uint32_t bit = 0; bit < grammar.classes.size(); ++bit) {
            if ((values.without & (1u << bit)) == 0) continue;
            if (!first) s += '+';
            s += grammar.classes[bit];
            first = false;
        }
    }
    return s;
}

}  // namespace tandem::sim
