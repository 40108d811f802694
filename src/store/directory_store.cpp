// The directory store (directory_store.hpp): files, flock(2) for the leases, a flusher thread
// for the fsync policy. Layout under the root:
//   rooms/NAME/lock          flock(2)'d around every lease change and segment switch
//   rooms/NAME/lease         "owner\nboot id\nexpiry ms\n" (absent: free)
//   rooms/NAME/GEN.seg       segments; GEN is 16 hex digits, the newest the highest. A new owner
//                            takes a generation above every one present, so a superseded owner's
//                            later writes land in a file load() no longer returns first.
#include "tandem/store/directory_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace tandem::store {

namespace fs = std::filesystem;

namespace {

int64_t monotonic_ms() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1'000'000;
}

std::string read_boot_id() {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string id;
    std::getline(in, id);
    return id.empty() ? "unknown-boot" : id;
}

bool write_all(int fd, std::span<const uint8_t> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

std::string segment_name(uint64_t generation) {
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.seg", static_cast<unsigned long long>(generation));
    return name;
}

// The generations present in a room's folder, ascending.
std::vector<uint64_t> generations(const fs::path& dir) {
    std::vector<uint64_t> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.size() != 20 || !name.ends_with(".seg")) continue;
        char* end = nullptr;
        const unsigned long long g = std::strtoull(name.c_str(), &end, 16);
        if (end == name.c_str() + 16) out.push_back(g);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Holds a room's lock file flock'd for its lifetime.
class RoomLock {
public:
    explicit RoomLock(const fs::path& dir) {
        fd_ = ::open((dir / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }
    ~RoomLock() {
        if (fd_ >= 0) ::close(fd_);   // closing releases the flock
    }
    RoomLock(const RoomLock&) = delete;
    RoomLock& operator=(const RoomLock&) = delete;
    bool ok() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

struct LeaseFile {
    std::string owner;
    std::string boot;
    int64_t expires_ms = 0;
};

}  // namespace

// One open log's file, shared with the flusher (which fdatasyncs a dup of the descriptor, so a
// segment switch on the room's thread never waits for a disk flush).
struct LogFile {
    std::mutex mutex;
    int fd = -1;
    uint64_t generation = 0;
    bool dirty = false;
    uint64_t durable_generation = 0;   // the newest generation fdatasync'd with its folder
    std::vector<int> retiring;         // superseded segments' descriptors, synced and closed by the flusher
    fs::path dir;
    ~LogFile() {
        if (fd >= 0) ::close(fd);
        for (int r : retiring) ::close(r);
    }
};

struct DirectoryStore::Shared {
    fs::path root;
    DirectoryStoreOptions options;
    std::string boot = read_boot_id();
    std::mutex mutex;
    std::vector<std::weak_ptr<LogFile>> logs;
    std::condition_variable wake;
    bool stopping = false;

    fs::path room_dir(std::string_view room) const { return root / "rooms" / std::string(room); }
    int64_t now() const { return options.now_ms ? options.now_ms() : monotonic_ms(); }

    std::optional<LeaseFile> read_lease(const fs::path& dir) const {
        std::ifstream in(dir / "lease");
        if (!in) return std::nullopt;
        LeaseFile l;
        std::string expires;
        if (!std::getline(in, l.owner) || !std::getline(in, l.boot) || !std::getline(in, expires)) return std::nullopt;
        l.expires_ms = std::strtoll(expires.c_str(), nullptr, 10);
        if (l.boot != boot || l.expires_ms <= now()) return std::nullopt;   // expired, or from another boot
        return l;
    }
    bool write_lease(const fs::path& dir, std::string_view owner, uint32_t ttl_ms) const {
        const std::string text = std::string(owner) + "\n" + boot + "\n" + std::to_string(now() + ttl_ms) + "\n";
        const fs::path tmp = dir / "lease.tmp";
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) return false;
        const bool ok = write_all(fd, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
        ::close(fd);
        return ok && ::rename(tmp.c_str(), (dir / "lease").c_str()) == 0;
    }

    void pass() {
        std::vector<std::shared_ptr<LogFile>> live;
        {
            const std::lock_guard lock(mutex);
            std::vector<std::weak_ptr<LogFile>> kept;
            for (auto& w : logs) {
                if (auto l = w.lock()) {
                    live.push_back(l);
                    kept.push_back(w);
                }
            }
            logs = std::move(kept);
        }
        for (const auto& log : live) {
            int fd = -1;
            uint64_t generation = 0;
            bool new_segment = false;
            std::vector<int> retiring;
            {
                const std::lock_guard lock(log->mutex);
                if (log->dirty && log->fd >= 0) fd = ::dup(log->fd);
                log->dirty = false;
                generation = log->generation;
                new_segment = generation > log->durable_generation && log->fd >= 0;
                retiring.swap(log->retiring);
            }
            for (int r : retiring) {
                ::fdatasync(r);
                ::close(r);
            }
            if (fd >= 0) {
                ::fdatasync(fd);
                ::close(fd);
            }
            if (!new_segment) continue;
            // The new segment's name made durable, then the ones it supersedes removed.
            const int dir_fd = ::open(log->dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dir_fd >= 0) {
                ::fsync(dir_fd);
                ::close(dir_fd);
            }
            for (uint64_t g : generations(log->dir)) {
                if (g < generation) ::unlink((log->dir / segment_name(g)).c_str());
            }
            const std::lock_guard lock(log->mutex);
            log->durable_generation = generation;
        }
    }
};

namespace {

class DirectoryRoomLog final : public RoomLog {
public:
    DirectoryRoomLog(std::shared_ptr<DirectoryStore::Shared> shared, std::shared_ptr<LogFile> file)
        : shared_(std::move(shared)), file_(std::move(file)) {}

    Result<void, StoreError> start_segment(std::span<const uint8_t> records) override {
        uint64_t next = 0;
        int fd = -1;
        {
            const RoomLock lock(file_->dir);
            if (!lock.ok()) return StoreError::io;
            const std::vector<uint64_t> present = generations(file_->dir);
            uint64_t mine = 0;
            {
                const std::lock_guard guard(file_->mutex);
                mine = file_->generation;
            }
            // Another owner opened a log after this one: its segments are the room's now.
            if (!present.empty() && present.back() > mine) return StoreError::not_owner;
            next = mine + 1;
            fd = ::open((file_->dir / segment_name(next)).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
            if (fd < 0) return errno == EEXIST ? StoreError::not_owner : StoreError::io;
        }
        if (!write_all(fd, records)) {
            ::close(fd);
            return StoreError::io;
        }
        const std::lock_guard guard(file_->mutex);
        if (file_->fd >= 0) file_->retiring.push_back(file_->fd);
        file_->fd = fd;
        file_->generation = next;
        file_->dirty = true;
        return {};
    }

    Result<void, StoreError> append(std::span<const uint8_t> records) override {
        int fd = -1;
        {
            const std::lock_guard guard(file_->mutex);
            fd = file_->fd;
            file_->dirty = true;
        }
        if (fd < 0) return StoreError::io;   // no segment started yet
        // Only this log's thread replaces or closes the descriptor, so it stays valid here.
        if (!write_all(fd, records)) return StoreError::io;
        return {};
    }

    Result<void, StoreError> sync() override {
        std::vector<int> retiring;
        int fd = -1;
        {
            const std::lock_guard guard(file_->mutex);
            retiring.swap(file_->retiring);
            fd = file_->fd;
        }
        bool ok = true;
        for (int r : retiring) {
            ok = ::fdatasync(r) == 0 && ok;
            ::close(r);
        }
        if (fd >= 0) ok = ::fdatasync(fd) == 0 && ok;
        const int dir_fd = ::open(file_->dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_fd >= 0) {
            ::fsync(dir_fd);
            ::close(dir_fd);
        }
        if (!ok) return StoreError::io;
        return {};
    }

private:
    std::shared_ptr<DirectoryStore::Shared> shared_;
    std::shared_ptr<LogFile> file_;
};

}  // namespace

Result<std::unique_ptr<DirectoryStore>, StoreError> DirectoryStore::open(const fs::path& root, DirectoryStoreOptions options) {
    std::error_code ec;
    fs::create_directories(root / "rooms", ec);
    if (ec || !fs::is_directory(root / "rooms", ec)) return StoreError::io;
    return std::unique_ptr<DirectoryStore>(new DirectoryStore(root, std::move(options)));
}

DirectoryStore::DirectoryStore(fs::path root, DirectoryStoreOptions options) : shared_(std::make_shared<Shared>()) {
    shared_->root = std::move(root);
    shared_->options = std::move(options);
    flusher_ = std::thread([shared = shared_] {
        std::unique_lock lock(shared->mutex);
        while (!shared->stopping) {
            shared->wake.wait_for(lock, std::chrono::milliseconds(shared->options.sync_interval_ms));
            if (shared->stopping) break;
            lock.unlock();
            shared->pass();
            lock.lock();
        }
    });
}

DirectoryStore::~DirectoryStore() {
    {
        const std::lock_guard lock(shared_->mutex);
        shared_->stopping = true;
    }
    shared_->wake.notify_all();
    flusher_.join();
    shared_->pass();   // what was written is synced before the store goes
}

void DirectoryStore::sync_pass() { shared_->pass(); }

Result<std::unique_ptr<RoomLog>, StoreError> DirectoryStore::open_log(std::string_view room, std::string_view owner) {
    if (!valid_room_name(room) || !valid_owner(owner)) return StoreError::bad_name;
    const fs::path dir = shared_->room_dir(room);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return StoreError::io;
    auto file = std::make_shared<LogFile>();
    file->dir = dir;
    {
        const RoomLock lock(dir);
        if (!lock.ok()) return StoreError::io;
        // Above every generation present: from now on this log's segments are the newest.
        const std::vector<uint64_t> present = generations(dir);
        file->generation = present.empty() ? 0 : present.back();
        file->durable_generation = file->generation;
    }
    {
        const std::lock_guard lock(shared_->mutex);
        shared_->logs.push_back(file);
    }
    return std::unique_ptr<RoomLog>(new DirectoryRoomLog(shared_, std::move(file)));
}

Result<std::vector<std::vector<uint8_t>>, StoreError> DirectoryStore::load(std::string_view room) {
    if (!valid_room_name(room)) return StoreError::bad_name;
    const fs::path dir = shared_->room_dir(room);
    std::vector<std::vector<uint8_t>> out;
    std::vector<uint64_t> present = generations(dir);
    std::reverse(present.begin(), present.end());
    for (uint64_t g : present) {
        std::ifstream in(dir / segment_name(g), std::ios::binary);
        if (!in) continue;   // deleted by a flusher between the listing and here
        std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (in.bad()) return StoreError::io;
        if (!bytes.empty()) out.push_back(std::move(bytes));
    }
    return out;
}

Result<bool, StoreError> DirectoryStore::erase(std::string_view room, std::string_view owner) {
    if (!valid_room_name(room) || !valid_owner(owner)) return StoreError::bad_name;
    const fs::path dir = shared_->room_dir(room);
    std::error_code ec;
    if (!fs::exists(dir, ec)) return true;
    {
        const RoomLock lock(dir);
        if (!lock.ok()) return StoreError::io;
        const auto lease = shared_->read_lease(dir);
        if (lease && lease->owner != owner) return false;
        for (uint64_t g : generations(dir)) ::unlink((dir / segment_name(g)).c_str());
        ::unlink((dir / "lease").c_str());
    }
    fs::remove_all(dir, ec);
    return true;
}

Result<std::vector<std::string>, StoreError> DirectoryStore::rooms() {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(shared_->root / "rooms", ec)) {
        if (!entry.is_directory()) continue;
        const std::string name = entry.path().filename().string();
        if (valid_room_name(name) && !generations(entry.path()).empty()) out.push_back(name);
    }
    if (ec) return StoreError::io;
    std::sort(out.begin(), out.end());
    return out;
}

Result<bool, StoreError> DirectoryStore::acquire(std::string_view room, std::string_view owner, uint32_t ttl_ms) {
    if (!valid_room_name(room) || !valid_owner(owner)) return StoreError::bad_name;
    const fs::path dir = shared_->room_dir(room);
    std::error_code ec;
    fs::create_directories(dir, ec);
    const RoomLock lock(dir);
    if (!lock.ok()) return StoreError::io;
    const auto lease = shared_->read_lease(dir);
    if (lease && lease->owner != owner) return false;
    if (!shared_->write_lease(dir, owner, ttl_ms)) return StoreError::io;
    return true;
}

// The compare-and-change behind renew, release and hand_over: under the room's lock, `change`
// runs only when the live lease is `owner`'s (false otherwise); io when it fails.
template <class Change>
Result<bool, StoreError> if_owner(DirectoryStore::Shared& shared, std::string_view room, std::string_view owner, Change change) {
    if (!valid_room_name(room) || !valid_owner(owner)) return StoreError::bad_name;
    const fs::path dir = shared.room_dir(room);
    const RoomLock lock(dir);
    if (!lock.ok()) return StoreError::io;
    const auto lease = shared.read_lease(dir);
    if (!lease || lease->owner != owner) return false;
    if (!change(dir)) return StoreError::io;
    return true;
}

Result<bool, StoreError> DirectoryStore::renew(std::string_view room, std::string_view owner, uint32_t ttl_ms) {
    return if_owner(*shared_, room, owner, [&](const fs::path& dir) { return shared_->write_lease(dir, owner, ttl_ms); });
}

Result<bool, StoreError> DirectoryStore::release(std::string_view room, std::string_view owner) {
    return if_owner(*shared_, room, owner, [](const fs::path& dir) { return ::unlink((dir / "lease").c_str()) == 0; });
}

Result<bool, StoreError> DirectoryStore::hand_over(std::string_view room, std::string_view owner, std::string_view to,
                                                   uint32_t ttl_ms) {
    if (!valid_owner(to)) return StoreError::bad_name;
    return if_owner(*shared_, room, owner, [&](const fs::path& dir) { return shared_->write_lease(dir, to, ttl_ms); });
}

Result<std::optional<std::string>, StoreError> DirectoryStore::owner(std::string_view room) {
    if (!valid_room_name(room)) return StoreError::bad_name;
    const fs::path dir = shared_->room_dir(room);
    std::error_code ec;
    if (!fs::exists(dir, ec)) return std::optional<std::string>{};
    const RoomLock lock(dir);
    if (!lock.ok()) return StoreError::io;
    const auto lease = shared_->read_lease(dir);
    if (!lease) return std::optional<std::string>{};
    return std::optional<std::string>(lease->owner);
}

}  // namespace tandem::store
