// tandem_exhaustive: runs every registered sweep (or those named on the command line),
// prints the accuracy table and, with --out FILE, writes it as markdown. Exit 1 when a row
// breaks its bound, 2 on a command-line mistake.
#include "exhaustive/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace tandem::sweep {

static std::map<std::string, SweepFn>& registry() {
    static std::map<std::string, SweepFn> sweeps;
    return sweeps;
}

Register::Register(const char* name, SweepFn fn) { registry()[name] = fn; }

void Stats::add(long double error, int64_t input) {
    const long double a = std::fabs(error);
    if (count == 0 || a > max_abs_error) {
        max_abs_error = a;
        worst_input = input;
    }
    ++count;
    if (a <= 0.5L) ++correctly_rounded;
    sum_signed_error += error;
}

void Stats::merge(const Stats& o) {
    if (o.count == 0) return;
    if (o.max_abs_error > max_abs_error || count == 0) {
        max_abs_error = o.max_abs_error;
        worst_input = o.worst_input;
    }
    count += o.count;
    correctly_rounded += o.correctly_rounded;
    sum_signed_error += o.sum_signed_error;
}

Stats parallel(int64_t begin, int64_t end, const std::function<void(int64_t, int64_t, Stats&)>& body) {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    std::vector<Stats> parts(n);
    std::vector<std::thread> threads;
    const int64_t span = end - begin;
    for (unsigned i = 0; i < n; ++i) {
        const int64_t lo = begin + span * i / n;
        const int64_t hi = begin + span * (i + 1) / n;
        threads.emplace_back([&, lo, hi, i] { body(lo, hi, parts[i]); });
    }
    for (auto& t : threads) t.join();
    Stats total;
    for (const auto& p : parts) total.merge(p);
    return total;
}

std::string describe_raw(int64_t raw) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "raw %lld (%.7f)", static_cast<long long>(raw), static_cast<double>(raw) / 65536.0);
    return buf;
}

}  // namespace tandem::sweep

int main(int argc, char** argv) {
    using namespace tandem::sweep;
    std::string out;
    std::vector<std::string> only;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--out") == 0) {
            if (i + 1 >= argc) { std::fprintf(stderr, "error: --out needs a file name\n"); return 2; }
            out = argv[++i];
        } else if (std::strcmp(argv[i], "--help") == 0) {
            std::printf("usage: tandem_exhaustive [--out FILE] [SWEEP...]\nsweeps:");
            for (const auto& [name, fn] : registry()) std::printf(" %s", name.c_str());
            std::printf("\n");
            return 0;
        } else if (argv[i][0] == '-') {
            std::fprintf(stderr, "error: unknown option '%s' (expected --out FILE, --help or sweep names)\n", argv[i]);
            return 2;
        } else {
            if (!registry().count(argv[i])) { std::fprintf(stderr, "error: unknown sweep '%s' (see --help)\n", argv[i]); return 2; }
            only.emplace_back(argv[i]);
        }
    }
    std::ostringstream table;
    table << "| function | domain | inputs | max error (LSB) | mean signed error (LSB) | correctly rounded | worst input | bound | result |\n";
    table << "|---|---|---|---|---|---|---|---|---|\n";
    bool all_pass = true;
    for (const auto& [name, fn] : registry()) {
        if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
        const auto t0 = std::chrono::steady_clock::now();
        const auto rows = fn();
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "sweep %s: %.1f s\n", name.c_str(), secs);
        for (const auto& r : rows) {
            const auto& s = r.stats;
            char line[512];
            std::snprintf(line, sizeof line, "| %s | %s | %llu | %.4Lf | %+.6Lf | %.6f%% | %s | %s | %s |\n",
                          r.function.c_str(), r.domain.c_str(), static_cast<unsigned long long>(s.count),
                          s.max_abs_error, s.count ? s.sum_signed_error / s.count : 0.0L,
                          s.count ? 100.0 * static_cast<double>(s.correctly_rounded) / static_cast<double>(s.count) : 0.0,
                          r.worst.c_str(), r.bound.c_str(), r.pass ? "pass" : "FAIL");
            table << line;
            std::fputs(line, stdout);
            all_pass = all_pass && r.pass;
        }
    }
    if (!out.empty()) {
        std::ofstream f(out);
        f << "# Fixed-point accuracy\n\n"
             "Written by `build-scripts/exhaustive` (the `tandem_exhaustive` sweep, CTest label\n"
             "`exhaustive`). Errors are in LSB of Q16.16 (1 LSB = 2^-16), measured against an exact\n"
             "integer or long double reference over the whole stated domain. \"Correctly rounded\" is\n"
             "the share of inputs whose result is the raw value nearest the exact one (|error| <= 0.5).\n\n"
          << table.str();
        if (!f) { std::fprintf(stderr, "error: cannot write %s\n", out.c_str()); return 1; }
    }
    return all_pass ? 0 : 1;
}
