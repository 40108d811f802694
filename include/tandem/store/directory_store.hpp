// The embedded store: a directory on one machine. Each room is a folder holding its segments as
// append-only files (a new file per segment; older ones deleted once the newer is durable) and
// its lease as a small file changed under flock(2), so processes on one machine share it.
//
// Durability (the fsync policy): a write returns after write(2), so a process crash loses
// nothing; a flusher thread fdatasync()s every file written since its last pass once a second
// (DirectoryStoreOptions::sync_interval_ms), then the folder, and only then deletes a superseded
// segment. So a machine crash (power, kernel) loses at most the last second of ticks (plus the
// pass's own fdatasync), and never the whole room: the segment before an unsynced new one is
// still there, and load() returns both.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tandem/store/checkpoint_store.hpp"

namespace tandem::store {

struct DirectoryStoreOptions {
    // One fdatasync pass a second: the machine-crash window, against an fsync per tick that
    // would cost every room milliseconds on a busy disk.
    uint32_t sync_interval_ms = 1000;
    // The leases' clock, in milliseconds: CLOCK_MONOTONIC by default (one clock for every process
    // of a machine; a lease file also names the boot it was written in, so a lease from before a
    // reboot is expired). Tests pass their own.
    std::function<int64_t()> now_ms;
};

class DirectoryStore final : public CheckpointStore {
public:
    // Creates the folder if needed; io when it cannot.
    static Result<std::unique_ptr<DirectoryStore>, StoreError> open(const std::filesystem::path& root,
                                                                    DirectoryStoreOptions options = {});
    ~DirectoryStore() override;

    std::string_view kind() const override { return "directory"; }
    Result<std::unique_ptr<RoomLog>, StoreError> open_log(std::string_view room, std::string_view owner) override;
    Result<std::vector<std::vector<uint8_t>>, StoreError> load(std::string_view room) override;
    Result<bool, StoreError> erase(std::string_view room, std::string_view owner) override;
    Result<std::vector<std::string>, StoreError> rooms() override;
    Result<bool, StoreError> acquire(std::string_view room, std::string_view owner, uint32_t ttl_ms) override;
    Result<bool, StoreError> renew(std::string_view room, std::string_view owner, uint32_t ttl_ms) override;
    Result<bool, StoreError> release(std::string_view room, std::string_view owner) override;
    Result<bool, StoreError> hand_over(std::string_view room, std::string_view owner, std::string_view to,
                                       uint32_t ttl_ms) override;
    Result<std::optional<std::string>, StoreError> owner(std::string_view room) override;

    // One flusher pass now (tests; the thread runs it every sync_interval_ms).
    void sync_pass();

    struct Shared;   // what the logs and the flusher share (directory_store.cpp)

private:
    DirectoryStore(std::filesystem::path root, DirectoryStoreOptions options);
    std::shared_ptr<Shared> shared_;
    std::thread flusher_;
};

}  // namespace tandem::store
