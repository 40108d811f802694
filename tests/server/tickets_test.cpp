// Properties of src/server/tickets.*: the signature is HMAC-SHA256 as RFC 4231 defines it
// (checked against the RFC's own test vectors, not against this code), over exactly the
// ticket's bytes before its mac; the book refuses a forged, expired, far-future, foreign or
// used ticket with its own code, in that order, with time passed in; a watcher's ticket is
// free again once released, a player's never before it expires; the book forgets what has
// expired and refuses rather than forgets when full; the key file's rules; base64url both ways;
// and `tandem ticket`'s output verifies and its mistakes exit 2.
#include "tandem/server/tickets.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace tandem;
using namespace tandem::server;

namespace {

std::vector<uint8_t> bytes_of(std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); }

std::string hex(std::span<const uint8_t> b) {
    std::string out;
    char two[3];
    for (const uint8_t x : b) {
        std::snprintf(two, sizeof two, "%02x", x);
        out += two;
    }
    return out;
}

const TicketKey key{bytes_of("0123456789abcdef0123456789abcdef")};
const TicketKey other_key{bytes_of("fedcba9876543210fedcba9876543210")};
constexpr int64_t now = 1'700'000'000;

net::Ticket ticket(uint8_t id, net::Role role = net::Role::play, uint64_t expires = now + 300, std::string room = "default") {
    net::Ticket t;
    t.expires_unix_s = expires;
    t.nonce.fill(id);
    t.role = role;
    t.room = std::move(room);
    t.name = "ann";
    sign_ticket(key, t);
    return t;
}

std::filesystem::path write_temp(const std::string& name, const std::string& contents) {
    const auto path = std::filesystem::temp_directory_path() / ("tandem-tickets-test-" + name);
    std::ofstream(path, std::ios::binary) << contents;
    return path;
}

int run_ticket(std::vector<std::string_view> args, std::string& out, std::string& err) {
    std::ostringstream o, e;
    const int status = ticket_command(args, o, e);
    out = o.str();
    err = e.str();
    return status;
}

}  // namespace

TEST_CASE("the mac is HMAC-SHA256 as RFC 4231's test vectors give it") {
    // RFC 4231 4.2 (test case 1) and 4.3 (test case 2).
    CHECK(hex(ticket_mac(TicketKey{std::vector<uint8_t>(20, 0x0b)}, bytes_of("Hi There"))) ==
          "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    CHECK(hex(ticket_mac(TicketKey{bytes_of("Jefe")}, bytes_of("what do ya want for nothing?"))) ==
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("a signature covers every field: changing any one of them forges the ticket") {
    const net::Ticket good = ticket(1);
    CHECK(signature_holds(key, good));
    CHECK_FALSE(signature_holds(other_key, good));
    std::vector<net::Ticket> changed(7, good);
    changed[0].expires_unix_s += 1;
    changed[1].nonce[15] ^= 1;
    changed[2].role = net::Role::watch;
    changed[3].player = 2;
    changed[4].room = "defaulT";
    changed[5].name = "bob";
    changed[6].mac[31] ^= 1;
    for (size_t i = 0; i < changed.size(); ++i) {
        INFO("field " << i);
        CHECK_FALSE(signature_holds(key, changed[i]));
    }
}

TEST_CASE("the book refuses forged, expired, too-long-lived, foreign and used tickets, each with its own code, in that order") {
    TicketBook book(key, "default");
    net::Ticket forged = ticket(1);
    forged.mac[0] ^= 0x80;
    CHECK(book.check(forged, now) == net::ErrorCode::ticket_forged);
    // An expired forgery is still a forgery: the signature is checked first.
    net::Ticket old_forged = ticket(2, net::Role::play, now - 10);
    old_forged.mac[5] ^= 1;
    CHECK(book.check(old_forged, now) == net::ErrorCode::ticket_forged);
    CHECK(book.check(ticket(3, net::Role::play, now), now) == net::ErrorCode::ticket_expired);       // expiry is exclusive
    CHECK(book.check(ticket(3, net::Role::play, now + 1), now) == std::nullopt);
    CHECK(book.check(ticket(4, net::Role::play, now + max_ticket_lifetime_s + 1), now) == net::ErrorCode::ticket_invalid);
    CHECK(book.check(ticket(4, net::Role::play, now + max_ticket_lifetime_s), now) == std::nullopt);
    CHECK(book.check(ticket(5, net::Role::play, now + 60, "another"), now) == net::ErrorCode::ticket_invalid);
    const net::Ticket used = ticket(6);
    REQUIRE(book.check(used, now) == std::nullopt);
    book.spend(used, now);
    CHECK(book.check(used, now + 1) == net::ErrorCode::ticket_replayed);
    // Released or not, a player's ticket stays used until it expires; then it is expired.
    book.release(used.nonce);
    CHECK(book.check(used, now + 299) == net::ErrorCode::ticket_replayed);
    CHECK(book.check(used, now + 300) == net::ErrorCode::ticket_expired);
}

TEST_CASE("a watcher's ticket admits one connection at a time: in use it is replayed, released it admits again") {
    TicketBook book(key, "default");
    const net::Ticket w = ticket(1, net::Role::watch);
    book.spend(w, now);
    CHECK(book.check(w, now) == net::ErrorCode::ticket_replayed);
    book.release(w.nonce);
    CHECK(book.check(w, now) == std::nullopt);
    CHECK(book.remembered() == 0);
}

TEST_CASE("the book forgets players' tickets once expired, and when full refuses new ones instead of forgetting live ones") {
    TicketBook book(key, "default");
    for (uint32_t i = 0; i < max_tickets_remembered; ++i) {
        net::Ticket t = ticket(0, net::Role::play, now + 10);
        for (int k = 0; k < 4; ++k) t.nonce[k] = static_cast<uint8_t>(i >> (8 * k));
        book.spend(t, now);   // spend trusts its caller: the mac is not what is tested here
    }
    CHECK(book.remembered() == max_tickets_remembered);
    net::Ticket next = ticket(0xEE, net::Role::play, now + 100);
    CHECK(book.check(next, now) == net::ErrorCode::room_full);
    // Ten seconds on, every one of them has expired: forgotten, and the new one admitted.
    CHECK(book.check(next, now + 10) == std::nullopt);
    CHECK(book.remembered() == 0);
}

TEST_CASE("a key file is its bytes without trailing whitespace, 32 to 4096 of them, and anything else is a usage error naming the file") {
    const auto hex_key = write_temp("hex", std::string(64, 'a') + "\n");
    const auto key_read = read_ticket_key(hex_key.string());
    REQUIRE(key_read.ok());
    CHECK(key_read->bytes == std::vector<uint8_t>(64, 'a'));
    const auto short_key = write_temp("short", std::string(31, 'k') + "\n\n");
    CHECK(read_ticket_key(short_key.string()).message() ==
          "--ticket-key expects a file holding a key of 32 to 4096 bytes, e.g. made by 'openssl rand -hex 32' (got 31 bytes in '" +
              short_key.string() + "')");
    const auto long_key = write_temp("long", std::string(5000, 'k'));
    CHECK(read_ticket_key(long_key.string()).message().starts_with("--ticket-key expects a file of at most 4096 bytes"));
    CHECK(read_ticket_key("/nonexistent/key").message() == "--ticket-key cannot read '/nonexistent/key'");
    for (const auto& p : {hex_key, short_key, long_key}) std::filesystem::remove(p);
}

TEST_CASE("base64url is RFC 4648's without padding, and only its one spelling decodes") {
    CHECK(base64url(bytes_of("")) == "");
    CHECK(base64url(bytes_of("f")) == "Zg");
    CHECK(base64url(bytes_of("fo")) == "Zm8");
    CHECK(base64url(bytes_of("foo")) == "Zm9v");
    CHECK(base64url(std::vector<uint8_t>{0xFB, 0xFF}) == "-_8");
    CHECK(from_base64url("Zm9v") == bytes_of("foo"));
    CHECK(from_base64url("-_8") == std::vector<uint8_t>{0xFB, 0xFF});
    CHECK_FALSE(from_base64url("Zm9v="));   // padding
    CHECK_FALSE(from_base64url("Zm+v"));    // base64's alphabet, not base64url's
    CHECK_FALSE(from_base64url("Z"));       // no whole byte
    CHECK_FALSE(from_base64url("Zh"));      // leftover bits not zero: "Zg" is the spelling
}

TEST_CASE("tandem ticket prints a ticket the key verifies, for the room, role, seat and name asked") {
    const auto path = write_temp("cmd", "0123456789abcdef0123456789abcdef\n");
    std::string out, err;
    REQUIRE(run_ticket({"--ticket-key", path.string(), "--role", "play", "--room", "r-1", "--player", "3", "--name", "ann",
                        "--expires-in", "60"}, out, err) == 0);
    REQUIRE(out.ends_with("\n"));
    const auto bytes = from_base64url(std::string_view(out).substr(0, out.size() - 1));
    REQUIRE(bytes);
    const auto t = net::decode_ticket(*bytes);
    REQUIRE(t.ok());
    CHECK(signature_holds(key, *t));
    CHECK(t->role == net::Role::play);
    CHECK(t->player == 3);
    CHECK(t->room == "r-1");
    CHECK(t->name == "ann");
    const int64_t left = static_cast<int64_t>(t->expires_unix_s) - unix_now_s();
    CHECK(left >= 58);
    CHECK(left <= 61);
    // Two tickets never share a nonce.
    std::string again;
    REQUIRE(run_ticket({"--ticket-key", path.string(), "--role", "watch", "--expires-at", "5"}, again, err) == 0);
    const auto w = net::decode_ticket(*from_base64url(std::string_view(again).substr(0, again.size() - 1)));
    REQUIRE(w.ok());
    CHECK(w->nonce != t->nonce);
    CHECK(w->expires_unix_s == 5);
    CHECK(w->room == "default");
    std::filesystem::remove(path);
}

TEST_CASE("tandem ticket's mistakes exit 2 with one line naming what was wrong") {
    const auto path = write_temp("cmd2", "0123456789abcdef0123456789abcdef");
    const std::string k = path.string();
    const std::vector<std::pair<std::vector<std::string_view>, std::string>> cases = {
        {{"--role", "play"}, "tandem ticket: missing --ticket-key FILE (the key the server was given)\n"},
        {{"--ticket-key", k}, "tandem ticket: missing --role play|watch\n"},
        {{"--ticket-key", k, "--role", "both"}, "tandem ticket: --role expects play or watch (got 'both')\n"},
        {{"--ticket-key", k, "--role", "play", "--room", "a.b"}, "tandem ticket: --room expects a room's name, 1 to 64 of [A-Za-z0-9_-] (got 'a.b')\n"},
        {{"--ticket-key", k, "--role", "play", "--player", "65"}, "tandem ticket: --player expects a whole number in 0..64 (got '65')\n"},
        {{"--ticket-key", k, "--role", "watch", "--player", "2"},
         "tandem ticket: --player is a player's seat: a watcher's ticket names none\n"},
        {{"--ticket-key", k, "--role", "play", "--expires-in", "0"}, "tandem ticket: --expires-in expects a whole number in 1..86400 (got '0')\n"},
        {{"--ticket-key", k, "--role", "play", "--expires-in", "5", "--expires-at", "9"},
         "tandem ticket: --expires-in and --expires-at are exclusive\n"},
        {{"--ticket-key", k, "--role", "play", "--name", std::string_view("\xFF")}, "tandem ticket: --name expects 0 to 64 bytes of UTF-8 (got '\xFF')\n"},
        {{"--ticket-key", k, "--role", "play", "--role", "play"}, "tandem ticket: --role given twice\n"},
        {{"--ticket-key"}, "tandem ticket: missing value for --ticket-key\n"},
        {{"--seat", "1"}, "tandem ticket: unknown option '--seat' (accepted: --ticket-key, --role, --room, --player, --name, "
                          "--expires-in, --expires-at, --help)\n"},
        {{"--ticket-key", "/nonexistent", "--role", "play"}, "tandem ticket: --ticket-key cannot read '/nonexistent'\n"},
    };
    for (const auto& [args, message] : cases) {
        std::string out, err;
        INFO(message);
        CHECK(run_ticket(args, out, err) == 2);
        CHECK(out.empty());
        CHECK(err == message);
    }
    std::string out, err;
    CHECK(run_ticket({"--help"}, out, err) == 0);
    CHECK(out.starts_with("usage: tandem ticket --ticket-key FILE --role play|watch"));
    std::filesystem::remove(path);
}

TEST_CASE("a game's own command mints with the same rules and names itself in its messages and usage") {
    const auto path = write_temp("cmd3", "0123456789abcdef0123456789abcdef");
    const std::string k = path.string();
    std::ostringstream o, e;
    const std::vector<std::string_view> bad = {"--ticket-key", k, "--role", "both"};
    CHECK(ticket_command(bad, o, e, "starter ticket") == 2);
    CHECK(e.str() == "starter ticket: --role expects play or watch (got 'both')\n");
    std::ostringstream help, none;
    const std::vector<std::string_view> ask = {"--help"};
    CHECK(ticket_command(ask, help, none, "starter ticket") == 0);
    // The usage's second line stays under the first's options, whatever the command's name.
    CHECK(help.str().starts_with("usage: starter ticket --ticket-key FILE --role play|watch [--room NAME] [--player N]\n"
                                 "                      [--name TEXT]"));
    std::filesystem::remove(path);
}
