// The one way the library reports a refusal: Result<T, E>, a value or a typed error code.
// Core, world and net return it from everything that can refuse its input; nothing in the
// library throws (the wasm build has C++ exceptions off, where a throw aborts the module).
// An error type E is usually an enum whose values never change meaning (a stable code); a
// small struct is allowed where the refusal needs a detail (the CLI's usage message). E has
//   std::string_view error_name(const E&)  the snake_case code the bindings expose as `.code`;
//   std::string_view describe(const E&)    one sentence naming the rule that was broken
// (for a struct, a view into the error itself, valid while the Result holds it).
#pragma once

#include <concepts>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tandem {

template <class E>
concept ErrorCode = std::is_copy_constructible_v<E> && std::is_default_constructible_v<E> && requires(const E& e) {
    { error_name(e) } -> std::convertible_to<std::string_view>;
    { describe(e) } -> std::convertible_to<std::string_view>;
};

namespace detail {
// Reading the value of a refusal is a caller bug, not a condition to handle: it stops the
// program (std::abort, which the sanitizers and the wasm runtime both report) rather than
// hand back a half-built object. Check ok() first, or use value_or.
[[noreturn]] inline void value_of_refused_result() { std::abort(); }
}  // namespace detail

template <class T, ErrorCode E>
class [[nodiscard]] Result {
public:
    using value_type = T;
    using error_type = E;

    Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor): by design
    Result(E error) : error_(std::move(error)) {}   // NOLINT(google-explicit-constructor): by design

    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }

    const T& value() const& {
        if (!value_) detail::value_of_refused_result();
        return *value_;
    }
    T& value() & {
        if (!value_) detail::value_of_refused_result();
        return *value_;
    }
    T&& value() && {
        if (!value_) detail::value_of_refused_result();
        return std::move(*value_);
    }
    const T& operator*() const& { return value(); }
    T& operator*() & { return value(); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }
    T value_or(T fallback) const& { return value_ ? *value_ : std::move(fallback); }

    // Meaningful only when !ok().
    const E& error() const { return error_; }
    std::string_view code() const { return ok() ? std::string_view{} : std::string_view(error_name(error_)); }
    std::string_view message() const { return ok() ? std::string_view{} : std::string_view(describe(error_)); }

private:
    std::optional<T> value_;
    E error_{};
};

// For operations that produce nothing but may refuse: Result<void, E>{} is success.
template <ErrorCode E>
class [[nodiscard]] Result<void, E> {
public:
    using value_type = void;
    using error_type = E;

    Result() = default;
    Result(E error) : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor): by design

    bool ok() const { return ok_; }
    explicit operator bool() const { return ok_; }
    const E& error() const { return error_; }
    std::string_view code() const { return ok_ ? std::string_view{} : std::string_view(error_name(error_)); }
    std::string_view message() const { return ok_ ? std::string_view{} : std::string_view(describe(error_)); }

private:
    E error_{};
    bool ok_ = true;
};

}  // namespace tandem
