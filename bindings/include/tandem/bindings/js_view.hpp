// What a page draws, for any game: the fields it asked for (its plugin's selection), read from
// a state by the game's one visitor into reused column buffers, one column per selected field
// of a list's elements (a Vec2 or a SlotKey as two) and one number per selected field outside
// the lists. JS gets typed-array views of the buffers (valid until the next call into the
// module), so a frame allocates nothing per element. Fx values leave as float units (the render
// edge, one way: tandem::to_f32), everything else as doubles. Lists not selected are not walked.
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tandem/client/corrections.hpp"
#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"
#include "tandem/core/slot_key.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::bindings {

using emscripten::val;

// The fields a page draws: per list the element fields (names within the element, an object's
// as "outer.inner"), and fields outside the lists by their dump paths ("config.arena_size").
struct ViewSelection {
    struct List {
        std::string name;
        std::vector<std::string> fields;
    };
    std::vector<List> lists;
    std::vector<std::string> scalars;
};

// One state's selected values.
class ViewColumns {
public:
    struct Column {
        std::string name;        // "pos.x", "player", "key.index"
        bool units = false;      // float units (from Fx) rather than a double
        std::vector<float> f;
        std::vector<double> d;
    };
    struct List {
        std::string name;
        std::vector<std::string> wanted;
        std::vector<int> first;      // per wanted field: its first column, -1 until seen
        std::vector<Column> columns;
        std::vector<uint64_t> keys;  // each element's key_identity (for eased offsets)
        uint32_t count = 0;
    };
    struct Scalar {
        std::string path;
        double value = 0;
        bool seen = false;
    };

    void select(const ViewSelection& s) {
        lists_.clear();
        scalars_.clear();
        for (const auto& l : s.lists) {
            List list;
            list.name = l.name;
            list.wanted = l.fields;
            list.first.assign(l.fields.size(), -1);
            lists_.push_back(std::move(list));
        }
        for (const auto& p : s.scalars) scalars_.push_back({p, 0, false});
    }

    template <class G>
    void read(const typename G::State& state);

    // Adds each eased offset to its element's drawn field (both of its columns).
    template <class Offsets>
    void add_offsets(const client::EasedField& eased, const Offsets& offsets) {
        if (offsets.empty()) return;
        for (List& l : lists_) {
            if (l.name != eased.list) continue;
            int at = -1;
            for (std::size_t i = 0; i < l.wanted.size(); ++i)
                if (l.wanted[i] == eased.field) at = l.first[i];
            if (at < 0 || static_cast<std::size_t>(at) + 1 >= l.columns.size()) return;
            Column& x = l.columns[at];
            Column& y = l.columns[at + 1];
            for (uint32_t row = 0; row < l.count; ++row) {
                for (const auto& o : offsets) {
                    if (o.key != l.keys[row]) continue;
                    x.f[row] += o.dx;
                    y.f[row] += o.dy;
                }
            }
        }
    }

    // {lists: {name: {count, columns: {field: Float32Array | Float64Array}}}, scalars: {path: number}}:
    // views into this object's buffers.
    val to_js() const {
        val lists = val::object();
        for (const List& l : lists_) {
            val columns = val::object();
            for (const Column& c : l.columns) {
                columns.set(c.name, c.units ? val(emscripten::typed_memory_view(l.count, c.f.data()))
                                            : val(emscripten::typed_memory_view(l.count, c.d.data())));
            }
            val o = val::object();
            o.set("count", l.count);
            o.set("columns", columns);
            lists.set(l.name, o);
        }
        val scalars = val::object();
        for (const Scalar& s : scalars_) {
            if (s.seen) scalars.set(s.path, s.value);
        }
        val out = val::object();
        out.set("lists", lists);
        out.set("scalars", scalars);
        return out;
    }

private:
    template <class G>
    friend class ViewVisitor;
    std::vector<List> lists_;
    std::vector<Scalar> scalars_;
};

template <class G>
class ViewVisitor {
public:
    explicit ViewVisitor(ViewColumns& c) : c_(c) {}

    template <class T>
    void field(std::string_view name, const T& v) {
        if (list_ != nullptr) return element_field(name, v);
        if (c_.scalars_.empty()) return;
        scalar(name, v);
    }
    template <class T, class S>
    void field(std::string_view name, const T& v, S) {
        field(name, v);
    }
    template <class S>
    void section(S) {}
    template <class C>
    void config(std::string_view name, const C& config) {
        if (c_.scalars_.empty()) return;
        object(name, [&] { G::visit_config(*this, config); });
    }
    template <class Vec, class F>
    void list(std::string_view name, const Vec& v, sim::Count count, F&& element) {
        list(name, v, count, sim::Also{}, element);
    }
    template <class Vec, class F>
    void list(std::string_view name, const Vec& v, sim::Count, sim::Also, F&& element) {
        if (list_ != nullptr) return;   // nested lists are not drawn
        ViewColumns::List* l = nullptr;
        for (auto& candidate : c_.lists_)
            if (candidate.name == name) l = &candidate;
        if (l == nullptr) return;
        l->count = static_cast<uint32_t>(v.size());
        for (auto& column : l->columns) {
            if (column.units) column.f.resize(l->count);
            else column.d.resize(l->count);
        }
        l->keys.resize(l->count);
        list_ = l;
        const std::string outer = prefix_;
        prefix_.clear();
        for (row_ = 0; row_ < l->count; ++row_) element(v[row_]);
        // A field not seen yet (the list has been empty so far) gets its columns from a default
        // element, so a page finds every column it asked for, empty or not.
        bool unseen = false;
        for (int first : l->first) unseen = unseen || first < 0;
        if (unseen) {
            probing_ = true;
            const typename Vec::value_type probe{};
            element(probe);
            probing_ = false;
        }
        prefix_ = outer;
        list_ = nullptr;
    }
    template <class T>
    void key(std::string_view name, const T& v) {
        if (list_ == nullptr) return;
        if (!probing_) list_->keys[row_] = client::key_identity(v);
        element_field(name, v);
    }
    template <class F>
    void object(std::string_view name, F&& walk) {
        sim::walk_nested(prefix_, name, walk);
    }
    template <class F>
    void derived(std::string_view name, F&& compute) {
        if (list_ == nullptr && !c_.scalars_.empty()) scalar(name, compute());
    }
    template <class F>
    void require(F&&) {}

private:
    // The value(s) of one field: Fx in float units, Vec2 and SlotKey as two.
    template <class T, class Put>
    static void components(const T& v, Put&& put) {
        using U = std::remove_cv_t<T>;
        if constexpr (std::is_same_v<U, Fx>) put("", true, to_f64(v));
        else if constexpr (std::is_same_v<U, Vec2>) {
            put(".x", true, to_f64(v.x));
            put(".y", true, to_f64(v.y));
        } else if constexpr (std::is_same_v<U, SlotKey>) {
            put(".index", false, static_cast<double>(v.index));
            put(".generation", false, static_cast<double>(v.generation));
        } else if constexpr (std::is_same_v<U, XorShift>) put("", false, static_cast<double>(v.state()));
        else if constexpr (std::is_same_v<U, bool>) put("", false, v ? 1.0 : 0.0);
        else put("", false, static_cast<double>(v));
    }

    bool named(std::string_view wanted, std::string_view name) const {
        if (prefix_.empty()) return wanted == name;
        return wanted.size() == prefix_.size() + name.size() && wanted.substr(0, prefix_.size()) == prefix_ &&
               wanted.substr(prefix_.size()) == name;
    }

    template <class T>
    void element_field(std::string_view name, const T& v) {
        ViewColumns::List& l = *list_;
        for (std::size_t i = 0; i < l.wanted.size(); ++i) {
            if (!named(l.wanted[i], name)) continue;
            if (l.first[i] < 0) {   // first sight: the columns of this field's type
                l.first[i] = static_cast<int>(l.columns.size());
                components(v, [&](std::string_view suffix, bool units, double) {
                    ViewColumns::Column c;
                    c.name = l.wanted[i] + std::string(suffix);
                    c.units = units;
                    if (units) c.f.resize(l.count);
                    else c.d.resize(l.count);
                    l.columns.push_back(std::move(c));
                });
            }
            if (probing_) return;
            int at = l.first[i];
            components(v, [&](std::string_view, bool units, double value) {
                ViewColumns::Column& c = l.columns[at++];
                if (units) c.f[row_] = static_cast<float>(value);
                else c.d[row_] = value;
            });
            return;
        }
    }

    template <class T>
    void scalar(std::string_view name, const T& v) {
        components(v, [&](std::string_view suffix, bool, double value) {
            for (auto& s : c_.scalars_) {
                if (s.path.size() != prefix_.size() + name.size() + suffix.size()) continue;
                if (std::string_view(s.path).substr(0, prefix_.size()) != prefix_) continue;
                if (std::string_view(s.path).substr(prefix_.size(), name.size()) != name) continue;
                if (std::string_view(s.path).substr(prefix_.size() + name.size()) != suffix) continue;
                s.value = value;
                s.seen = true;
            }
        });
    }

    ViewColumns& c_;
    ViewColumns::List* list_ = nullptr;
    uint32_t row_ = 0;
    bool probing_ = false;   // walking a default element for its columns' types only
    std::string prefix_;
};

template <class G>
void ViewColumns::read(const typename G::State& state) {
    for (Scalar& s : scalars_) s.seen = false;
    ViewVisitor<G> v(*this);
    G::visit_state(v, state);
}

}  // namespace tandem::bindings
