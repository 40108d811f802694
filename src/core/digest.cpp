// StateDigest's engine: XXH3-64 from the system's xxhash.h, compiled into this file only
// (header-only, XXH_INLINE_ALL) so no other file sees xxHash. It must never hash host-order
// bytes on a big-endian machine: every multi-byte field reaches XXH3 little-endian.
#include "tandem/core/digest.hpp"

#include <algorithm>
#include <new>

// On x86-64 the baseline build only assumes SSE2, which leaves half of XXH3's speed on the
// table. Its AVX2 kernels are compiled here as well, behind a target attribute, and chosen
// at run time (as xxHash's own xxh_x86dispatch.c does). XXH3 is specified to produce the
// same value from every kernel, and digest_test checks it against the baseline build.
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__) && (defined(__GNUC__) || defined(__clang__))
#define TANDEM_XXH3_AVX2 1
#define XXH_DISPATCH_AVX2 1
#define XXH_TARGET_AVX2 __attribute__((__target__("avx2")))
#include <immintrin.h>
#else
#define TANDEM_XXH3_AVX2 0
#endif

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace tandem {
namespace {

// The header reserves opaque room for the engine so it need not include xxhash.h.
constexpr uint32_t engine_room = 640;
static_assert(sizeof(XXH3_state_t) <= engine_room, "StateDigest::engine_bytes is too small for XXH3_state_t");
static_assert(alignof(XXH3_state_t) <= 64, "StateDigest::engine_ is under-aligned for XXH3_state_t");
static_assert(sizeof(Fx) == 4 && alignof(Fx) == alignof(int32_t), "Fx must be exactly its int32 raw value");

XXH3_state_t* engine(unsigned char* storage) { return std::launder(reinterpret_cast<XXH3_state_t*>(storage)); }
const XXH3_state_t* engine(const unsigned char* storage) {
    return std::launder(reinterpret_cast<const XXH3_state_t*>(storage));
}

constexpr bool little_endian_host = std::endian::native == std::endian::little;

#if TANDEM_XXH3_AVX2
XXH_TARGET_AVX2 void update_avx2(XXH3_state_t* state, const uint8_t* data, size_t size) {
    XXH3_update(state, data, size, XXH3_accumulate_512_avx2, XXH3_scrambleAcc_avx2);
}

bool cpu_has_avx2() {
    __builtin_cpu_init();  // safe even when first called from a static initialiser
    return __builtin_cpu_supports("avx2") != 0;
}
#endif

// All bulk input goes through here; the kernel choice never changes the value.
void engine_update(XXH3_state_t* state, const uint8_t* data, size_t size) {
#if TANDEM_XXH3_AVX2
    static const bool avx2 = cpu_has_avx2();
    if (avx2) {
        update_avx2(state, data, size);
        return;
    }
#endif
    XXH3_64bits_update(state, data, size);
}

}  // namespace

void StateDigest::start_streaming() {
    static_assert(engine_bytes == engine_room);
    // Begins the lifetime of the engine inside the reserved bytes (a trivial C struct).
    XXH3_state_t* state = ::new (static_cast<void*>(engine_)) XXH3_state_t;
    XXH3_64bits_reset(state);  // default secret, seed 0: what XXH3_64bits() computes
    streaming_ = true;
}

void StateDigest::feed(const void* data, uint64_t size) {
    if (!streaming_) start_streaming();
    // XXH3_64bits_update takes a size_t; on 32-bit targets feed at most 1 GiB at a time.
    const auto* bytes = static_cast<const uint8_t*>(data);
    while (size > 0) {
        const uint64_t step = std::min<uint64_t>(size, uint64_t{1} << 30);
        engine_update(engine(engine_), bytes, static_cast<size_t>(step));
        bytes += step;
        size -= step;
        flushed_ += step;
    }
}

void StateDigest::spill() {
    const uint32_t pending = used_;
    used_ = 0;
    if (pending > 0) feed(buffer_, pending);
}

void StateDigest::write_bytes(std::span<const uint8_t> bytes) {
    const uint64_t size = bytes.size();
    if (size <= buffer_bytes - used_) {
        if (size > 0) std::memcpy(buffer_ + used_, bytes.data(), static_cast<size_t>(size));
        used_ += static_cast<uint32_t>(size);
        return;
    }
    spill();
    if (size >= buffer_bytes) {
        feed(bytes.data(), size);  // large: no point copying it through the buffer
    } else {
        std::memcpy(buffer_, bytes.data(), static_cast<size_t>(size));
        used_ = static_cast<uint32_t>(size);
    }
}

template <class Word>
void StateDigest::write_words(std::span<const Word> values) {
    static_assert(sizeof(Word) == 4);
    if constexpr (little_endian_host) {
        // The object representation of a 32-bit array on a little-endian host is exactly the
        // canonical byte sequence (reading any object's bytes as unsigned char is allowed).
        write_bytes({reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4});
    } else {
        // Swap through the buffer a buffer-load at a time, never one spill check per word.
        const Word* next = values.data();
        uint64_t remaining = values.size();
        while (remaining > 0) {
            uint32_t room = (buffer_bytes - used_) / 4;
            if (room == 0) {
                spill();
                room = buffer_bytes / 4;
            }
            const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(remaining, room));
            for (uint32_t i = 0; i < n; ++i) {
                uint32_t word = 0;
                std::memcpy(&word, next + i, 4);
                store_le(buffer_ + used_ + 4 * i, word);
            }
            used_ += 4 * n;
            next += n;
            remaining -= n;
        }
    }
}

void StateDigest::write_u32s(std::span<const uint32_t> values) { write_words(values); }
void StateDigest::write_i32s(std::span<const int32_t> values) { write_words(values); }
void StateDigest::write_fx_span(std::span<const Fx> values) { write_words(values); }

uint64_t StateDigest::finish() const {
    // Never outgrew the buffer: one-shot XXH3 equals the streaming result for the same bytes.
    if (!streaming_) return XXH3_64bits(buffer_, used_);
    if (used_ == 0) return XXH3_64bits_digest(engine(engine_));
    // finish() is const and repeatable: fold the pending bytes into a copy of the engine.
    XXH3_state_t copy;
    XXH3_copyState(&copy, engine(engine_));
    XXH3_64bits_update(&copy, buffer_, used_);
    return XXH3_64bits_digest(&copy);
}

void StateDigest::copy_from(const StateDigest& other) {
    // Only the live parts: the engine when streaming, the buffer up to used_.
    if (other.streaming_) {
        ::new (static_cast<void*>(engine_)) XXH3_state_t;
        XXH3_copyState(engine(engine_), engine(other.engine_));
    }
    std::memcpy(buffer_, other.buffer_, other.used_);
    used_ = other.used_;
    streaming_ = other.streaming_;
    flushed_ = other.flushed_;
}

std::string hex64(uint64_t value) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string text(16, '0');
    for (int i = 15; i >= 0; --i, value >>= 4) text[static_cast<unsigned>(i)] = digits[value & 0xF];
    return text;
}

std::optional<uint64_t> parse_hex64(std::string_view text) {
    if (text.size() != 16) return std::nullopt;
    uint64_t value = 0;
    for (char c : text) {
        uint64_t digit = 0;
        if (c >= '0' && c <= '9') digit = static_cast<uint64_t>(c - '0');
        else if (c >= 'a' && c <= 'f') digit = static_cast<uint64_t>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') digit = static_cast<uint64_t>(c - 'A' + 10);
        else return std::nullopt;
        value = (value << 4) | digit;
    }
    return value;
}

}  // namespace tandem
