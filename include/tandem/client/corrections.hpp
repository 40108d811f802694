// Corrections<G>: the eased drawing of what a landed rollback moved, for any game. A game names
// one list of its state and one Vec2 field of its elements (the arena: its wells' positions;
// ships: its ships'); after each PredictedClient<G> update, every element whose field the
// rollback moved gets a drawn offset (where the eye was, minus where it is now) that an
// AdaptiveDecay sheds, small ones slowly and large ones fast, and a CorrectionMonitor judges.
// Presentation only: floats live here and nothing here feeds the simulation or the wire.
// Elements are matched by their key (the visitor's v.key), so the list's order never matters.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tandem/client/predicted.hpp"
#include "tandem/core/fixed.hpp"
#include "tandem/core/slot_key.hpp"
#include "tandem/predict/smoothing.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::client {

// An element's key as one 64-bit identity: an integer key as itself, a SlotKey as its index
// (high word) and generation (low word). Equal keys, equal identities.
template <class T>
constexpr uint64_t key_identity(const T& key) {
    if constexpr (std::is_same_v<std::remove_cv_t<T>, SlotKey>) return (uint64_t{key.index} << 32) | key.generation;
    else return static_cast<uint64_t>(key);
}

// The (key, value) of one Vec2 field of every element of one list of a state, by the list's and
// the field's names in the game's visitor (an object inside the element as "outer.inner").
// Other lists are not walked at all.
template <class G>
class KeyedPointVisitor {
public:
    struct Point {
        uint64_t key = 0;
        Vec2 value;
    };
    KeyedPointVisitor(std::string_view list, std::string_view field, std::vector<Point>& out)
        : list_(list), field_(field), out_(out) {}

    template <class T>
    void field(std::string_view name, const T& v) {
        if constexpr (std::is_same_v<std::remove_cv_t<T>, Vec2>) {
            if (inside_ && matches(name)) out_.push_back({key_, v});
        }
    }
    template <class T, class S>
    void field(std::string_view name, const T& v, S) {
        field(name, v);
    }
    template <class S>
    void section(S) {}
    template <class C>
    void config(std::string_view, const C&) {}
    template <class Vec, class F>
    void list(std::string_view name, const Vec& v, sim::Count count, F&& element) {
        list(name, v, count, sim::Also{}, element);
    }
    template <class Vec, class F>
    void list(std::string_view name, const Vec& v, sim::Count, sim::Also, F&& element) {
        if (inside_ || name != list_) return;
        inside_ = true;
        for (const auto& e : v) {
            key_ = 0;
            element(e);
        }
        inside_ = false;
    }
    template <class T>
    void key(std::string_view, const T& v) {
        if (inside_) key_ = key_identity(v);
    }
    template <class F>
    void object(std::string_view name, F&& walk) {
        if (inside_) sim::walk_nested(prefix_, name, walk);
    }
    template <class F>
    void derived(std::string_view, F&&) {}
    template <class F>
    void require(F&&) {}

private:
    bool matches(std::string_view name) const {
        if (prefix_.empty()) return name == field_;
        return field_.size() == prefix_.size() + name.size() && field_.substr(0, prefix_.size()) == prefix_ &&
               field_.substr(prefix_.size()) == name;
    }
    std::string_view list_, field_;
    std::vector<Point>& out_;
    std::string prefix_;
    bool inside_ = false;
    uint64_t key_ = 0;
};

template <class G>
void keyed_points(const typename G::State& state, std::string_view list, std::string_view field,
                  std::vector<typename KeyedPointVisitor<G>::Point>& out) {
    out.clear();
    if (list.empty()) return;
    KeyedPointVisitor<G> v(list, field, out);
    G::visit_state(v, state);
}

// Where a game's picture is corrected: a list and a Vec2 field of its elements. Empty: the game
// eases nothing (a correction then shows as a jump).
struct EasedField {
    std::string_view list;
    std::string_view field;
};

template <sim::Simulation G>
class Corrections {
public:
    struct Offset {
        uint64_t key = 0;      // the element's key_identity
        float dx = 0.0f, dy = 0.0f;
    };

    explicit Corrections(EasedField eased = {}, predict::AdaptiveDecay decay = {2.0f, 0.95f, 16.0f, 0.85f})
        : eased_(eased), decay_(decay) {}

    // After each PredictedClient::update: the offsets decay by the wall time since the last
    // call, and each element a landed rollback moved gets the move added to its offset.
    void update(const PredictedClient<G>& predicted, int64_t now) {
        if (predicted.epoch() != epoch_) offsets_.clear();   // a new world: nothing to ease from
        epoch_ = predicted.epoch();
        const float dt = updated_once_ ? static_cast<float>(std::max<int64_t>(0, now - last_update_at_)) * 1e-9f : 0.0f;
        last_update_at_ = now;
        updated_once_ = true;
        for (Offset& o : offsets_) {
            const float keep = decay_.retain(std::hypot(o.dx, o.dy), dt);
            o.dx *= keep;
            o.dy *= keep;
        }
        // A hundredth of a unit is far below a pixel at any zoom a page offers.
        std::erase_if(offsets_, [](const Offset& o) { return std::hypot(o.dx, o.dy) < 0.01f; });
        const typename G::State* was = predicted.corrected_from();
        const typename G::State* is = predicted.state();
        if (!was || !is || eased_.list.empty()) return;
        keyed_points<G>(*was, eased_.list, eased_.field, before_);
        keyed_points<G>(*is, eased_.list, eased_.field, after_);
        for (const auto& now_point : after_) {
            for (const auto& drawn : before_) {
                if (drawn.key != now_point.key) continue;
                const float dx = to_f32(drawn.value.x) - to_f32(now_point.value.x);
                const float dy = to_f32(drawn.value.y) - to_f32(now_point.value.y);
                const float distance = std::hypot(dx, dy);
                if (distance <= 0.0f) continue;
                ++corrections_;
                last_correction_ = distance;
                monitor_.record(distance);
                auto it = std::find_if(offsets_.begin(), offsets_.end(), [&](const Offset& o) { return o.key == now_point.key; });
                if (it == offsets_.end()) offsets_.push_back(Offset{now_point.key, dx, dy});
                else it->dx += dx, it->dy += dy;
            }
        }
    }

    // The offsets still being eased: draw the element at its field's value plus its offset.
    const std::vector<Offset>& offsets() const { return offsets_; }
    const EasedField& eased() const { return eased_; }
    uint64_t corrections() const { return corrections_; }   // elements drawn elsewhere after a rollback
    uint64_t monitor_alarms() const { return monitor_.alarms(); }
    float last_correction() const { return last_correction_; }

private:
    EasedField eased_;
    predict::AdaptiveDecay decay_;
    predict::CorrectionMonitor monitor_ = predict::CorrectionMonitor().with_floor(0.01f);
    std::vector<Offset> offsets_;
    std::vector<typename KeyedPointVisitor<G>::Point> before_, after_;   // reused
    uint64_t epoch_ = 0;
    int64_t last_update_at_ = 0;
    bool updated_once_ = false;
    uint64_t corrections_ = 0;
    float last_correction_ = 0.0f;
};

}  // namespace tandem::client
