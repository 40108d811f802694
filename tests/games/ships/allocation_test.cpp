// A ships step allocates nothing once its Stepper's scratch and the state's vectors have grown
// to the tick: counted by replacing the global operator new in this test binary.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>

#include "ships/scenario.hpp"
#include "ships/sim.hpp"

namespace {
uint64_t allocations = 0;
}

// Every unaligned form, so that whatever allocates is counted and frees with its own pair.
void* operator new(std::size_t n) {
    ++allocations;
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    ++allocations;
    return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

TEST_CASE("a warmed-up Stepper steps a tick of every scenario without allocating") {
    for (const ships::Scenario& s : ships::scenarios()) {
        ships::State base = ships::start(s);
        ships::advance(s, base, 600);
        const std::vector<ships::Input> inputs = ships::scenario_inputs(s, base);
        ships::Stepper stepper;
        ships::State w = base;
        stepper.step(w, inputs);   // grows the scratch and the state's vectors to this tick
        for (int i = 0; i < 3; ++i) {
            w = base;                // copy-assigned into storage that is already large enough
            const uint64_t before = allocations;
            stepper.step(w, inputs);
            const uint64_t during = allocations - before;   // read before Catch allocates its messages
            INFO(s.name);
            CHECK(during == 0);
        }
    }
}
