// StateDigest's engine: XXH3-64 (xxHash's public streaming API) through the engine table of
// core/xxh3_engine.hpp, which picks the AVX2 build when the CPU has it. It must never hash
// host-order bytes on a big-endian machine: every multi-byte field reaches XXH3 little-endian.
#include "tandem/core/digest.hpp"

#include <algorithm>

#include "core/xxh3_engine.hpp"

namespace tandem {
namespace {

static_assert(sizeof(Fx) == 4 && alignof(Fx) == alignof(int32_t), "Fx must be exactly its int32 raw value");

constexpr bool little_endian_host = std::endian::native == std::endian::little;

}  // namespace

void StateDigest::start_streaming() {
    static_assert(engine_bytes == detail::xxh3_state_bytes && alignof(StateDigest) >= detail::xxh3_state_align);
    detail::xxh3_engine().reset(engine_);
    streaming_ = true;
}

void StateDigest::feed(const void* data, uint64_t size) {
    if (!streaming_) start_streaming();
    // The engine takes a size_t; on 32-bit targets feed at most 1 GiB at a time.
    const auto& xxh3 = detail::xxh3_engine();
    const auto* bytes = static_cast<const uint8_t*>(data);
    while (size > 0) {
        const uint64_t step = std::min<uint64_t>(size, uint64_t{1} << 30);
        xxh3.update(engine_, bytes, static_cast<size_t>(step));
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
    const auto& xxh3 = detail::xxh3_engine();
    // Never outgrew the buffer: one-shot XXH3 equals the streaming result for the same bytes.
    if (!streaming_) return xxh3.hash(buffer_, used_);
    if (used_ == 0) return xxh3.digest(engine_);
    // finish() is const and repeatable: fold the pending bytes into a copy of the engine
    // (a state is plain data; copying its bytes is what XXH3_copyState does).
    alignas(detail::xxh3_state_align) unsigned char copy[detail::xxh3_state_bytes];
    std::memcpy(copy, engine_, sizeof copy);
    xxh3.update(copy, buffer_, used_);
    return xxh3.digest(copy);
}

void StateDigest::copy_from(const StateDigest& other) {
    // Only the live parts: the engine when streaming, the buffer up to used_.
    if (other.streaming_) std::memcpy(engine_, other.engine_, sizeof engine_);
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
