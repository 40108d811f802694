// The directory store (src/store/directory_store.*) against the store contract
// (store_contract.hpp), in a fresh temporary folder, its leases on a clock the test moves; and
// its own fsync policy: a superseded segment stays until the flusher has made the new one durable.
#include "tandem/store/directory_store.hpp"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "store/store_contract.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tandem;

struct Folder {
    fs::path path;
    Folder() {
        std::string tmpl = (fs::temp_directory_path() / "tandem-dir-store-XXXXXX").string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        path = tmpl;
    }
    ~Folder() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

struct Fixture {
    Folder folder;
    std::shared_ptr<std::atomic<int64_t>> clock = std::make_shared<std::atomic<int64_t>>(1'000'000);
    store_contract::Subject subject() {
        store_contract::Subject s;
        s.open = [this] {
            store::DirectoryStoreOptions options;
            options.now_ms = [c = clock] { return c->load(); };
            return std::unique_ptr<store::CheckpointStore>(store::DirectoryStore::open(folder.path, options).value().release());
        };
        s.let_time_pass = [c = clock](uint32_t ms) { *c += ms; };
        return s;
    }
};

}  // namespace

TEST_CASE("directory store: a lease has one owner at a time, lapses after its TTL, and changes hands only by compare") {
    Fixture f;
    store_contract::leases_have_one_owner(f.subject());
}

TEST_CASE("directory store: a new segment replaces the room's, appends extend it, load returns the bytes written") {
    Fixture f;
    store_contract::segments_replace_and_extend(f.subject());
}

TEST_CASE("directory store: once another owner opened a log, the old owner's writes are refused and load returns the new segment first") {
    Fixture f;
    store_contract::a_superseded_owner_changes_nothing(f.subject());
}

TEST_CASE("directory store: rooms lists every room with a checkpoint, and only its lease holder or nobody's lease erases one") {
    Fixture f;
    store_contract::rooms_and_erase(f.subject());
}

TEST_CASE("directory store: a writer killed right after its writes returned loses none of them") {
    Fixture f;
    store_contract::a_killed_writer_loses_nothing(f.subject(), false);
}

TEST_CASE("directory store: a room restored from the store's newest segment has the dead room's state and seats") {
    Fixture f;
    store_contract::a_room_restores_from_the_store(f.subject());
}

TEST_CASE("directory store: a superseded segment is kept until the flusher made the new one durable, then removed") {
    Fixture f;
    auto st = f.subject().open();
    auto* dir = dynamic_cast<store::DirectoryStore*>(st.get());
    REQUIRE(dir != nullptr);
    REQUIRE(st->acquire("r", "A", 5000).value());
    auto log = st->open_log("r", "A").value();
    REQUIRE(log->start_segment(store_contract::bytes({1})).ok());
    dir->sync_pass();
    REQUIRE(log->start_segment(store_contract::bytes({2})).ok());
    auto loaded = st->load("r").value();
    REQUIRE(loaded.size() == 2);   // the new one may not be durable yet: the old one stays
    CHECK(loaded[0] == store_contract::bytes({2}));
    CHECK(loaded[1] == store_contract::bytes({1}));
    dir->sync_pass();
    loaded = st->load("r").value();
    REQUIRE(loaded.size() == 1);
    CHECK(loaded[0] == store_contract::bytes({2}));
}

TEST_CASE("directory store: a lease written in another boot of the machine is expired") {
    Fixture f;
    auto st = f.subject().open();
    REQUIRE(st->acquire("r", "A", 60'000).value());
    const fs::path lease = f.folder.path / "rooms" / "r" / "lease";
    std::string text;
    {
        std::ifstream in(lease);
        std::string owner, boot, expiry;
        std::getline(in, owner);
        std::getline(in, boot);
        std::getline(in, expiry);
        CHECK(owner == "A");
        text = owner + "\nanother-boot\n" + expiry + "\n";
    }
    {
        std::ofstream out(lease, std::ios::trunc);
        out << text;
    }
    CHECK_FALSE(st->owner("r").value().has_value());
    CHECK(st->acquire("r", "B", 1000).value());
}

TEST_CASE("open_store takes dir: and path addresses, and refuses what it cannot parse") {
    Fixture f;
    CHECK(store::open_store("dir:" + f.folder.path.string()).ok());
    CHECK(store::open_store(f.folder.path.string()).ok());
    CHECK(store::open_store("ftp://x").error() == store::StoreError::bad_address);
    CHECK(store::open_store("redis://localhost").error() == store::StoreError::bad_address);
    CHECK(store::open_store("redis://localhost:99999").error() == store::StoreError::bad_address);
    CHECK(store::open_store("dir:").error() == store::StoreError::bad_address);
}
