// Properties of failover's plan (src/server/store_watch.*) and of the owner names it reads
// (room_checkpointing.hpp): a room nobody holds, or one handed to this process, is adopted; a
// room this process hosts is left alone; a room another process holds is answered with that
// process's WebSocket URL when it advertised one; rooms that failed are not retried; and the
// process never takes more rooms than it may host.
#include "server/store_watch.hpp"

#include <catch2/catch.hpp>

#include "tandem/server/room_checkpointing.hpp"
#include "tandem/store/checkpoint_store.hpp"

using namespace tandem;
using namespace tandem::server;

namespace {

const std::string self = "http://10.0.0.1:8080|host-a|100|aaaaaaaaaaaa";
const std::string peer = "http://10.0.0.2:9090|host-b|200|bbbbbbbbbbbb";
const std::string silent = "-|host-c|300|cccccccccccc";   // advertised no URL

using Set = std::set<std::string, std::less<>>;

}  // namespace

TEST_CASE("a room nobody holds is adopted, one this process hosts is not, another's is answered with its URL") {
    const std::vector<StoreRoom> rooms{{"free", std::nullopt}, {"mine", self}, {"theirs", peer}, {"hosted", std::nullopt}};
    const ScanPlan plan = plan_scan(rooms, Set{"hosted"}, self, {}, 64);
    // "mine" is held by this process's name but not hosted: a hand-over to it, adopted too.
    CHECK(plan.adopt == std::vector<std::string>{"free", "mine"});
    REQUIRE(plan.moved.size() == 1);
    CHECK(plan.moved.at("theirs") == "ws://10.0.0.2:9090/ws/theirs");
}

TEST_CASE("a room held by a process that advertised no URL is neither adopted nor answered moved") {
    const ScanPlan plan = plan_scan({{"quiet", silent}}, {}, self, {}, 64);
    CHECK(plan.adopt.empty());
    CHECK(plan.moved.empty());
}

TEST_CASE("a room that failed to be adopted is not tried again, and at most room_for rooms are adopted per scan") {
    const std::vector<StoreRoom> rooms{{"a", std::nullopt}, {"b", std::nullopt}, {"c", std::nullopt}, {"d", std::nullopt}};
    CHECK(plan_scan(rooms, {}, self, Set{"b"}, 64).adopt == std::vector<std::string>{"a", "c", "d"});
    CHECK(plan_scan(rooms, {}, self, {}, 2).adopt == std::vector<std::string>{"a", "b"});
    CHECK(plan_scan(rooms, {}, self, {}, 0).adopt.empty());
}

TEST_CASE("an owner's URL is the part before its first bar when it is http or https, else none") {
    CHECK(owner_url(peer) == "http://10.0.0.2:9090");
    CHECK(owner_url("https://game.example:443|h|1|x") == "https://game.example:443");
    CHECK(owner_url(silent).empty());
    CHECK(owner_url("tandem-serve|host|1|x").empty());   // the name before --advertise existed
    CHECK(owner_url("http://no-bar").empty());
    CHECK(owner_url("").empty());
}

TEST_CASE("a room's WebSocket URL takes ws for http and wss for https, and the room's path") {
    CHECK(room_websocket_url("http://127.0.0.1:8081", "r1") == "ws://127.0.0.1:8081/ws/r1");
    CHECK(room_websocket_url("https://[::1]:8443", "abc-_") == "wss://[::1]:8443/ws/abc-_");
}

TEST_CASE("this process's owner name carries its advertised URL, is a name every store accepts, and differs per incarnation") {
    const std::string a = process_owner("http://10.1.2.3:8080");
    const std::string b = process_owner("http://10.1.2.3:8080");
    CHECK(a.starts_with("http://10.1.2.3:8080|"));
    CHECK(owner_url(a) == "http://10.1.2.3:8080");
    CHECK(store::valid_owner(a));
    CHECK(a != b);
    const std::string none = process_owner("");
    CHECK(none.starts_with("-|"));
    CHECK(owner_url(none).empty());
    CHECK(store::valid_owner(none));
    // The longest URL --advertise takes still makes a valid name.
    CHECK(store::valid_owner(process_owner("http://" + std::string(max_advertise_url_bytes - 12, 'h') + ":65535")));
}
