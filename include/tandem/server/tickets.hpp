// Join tickets on the server's side: the key a lobby and the server share, read from a file;
// the HMAC-SHA256 signature over a ticket's bytes (protocol.hpp's Ticket) through OpenSSL; the
// book of tickets used, with time passed in; and the judge a room asks (net::TicketJudge),
// which reads the wall clock. Also `tandem ticket`, which mints one as a lobby would. Nothing
// here is in the wasm build: a page only carries the ticket it was given, and never a key.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tandem/core/result.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/room.hpp"
#include "tandem/server/options.hpp"

namespace tandem::server {

// The key: the file's bytes without trailing whitespace (so `openssl rand -hex 32 > key` and
// `head -c 32 /dev/urandom > key` both work), at least 32 bytes (HMAC-SHA256's block of
// strength) and at most 4 KiB. A lobby in another language signs with exactly these bytes.
inline constexpr uint32_t min_ticket_key_bytes = 32;
inline constexpr uint32_t max_ticket_key_bytes = 4096;
// A ticket expiring further ahead than this is refused (ticket_invalid): a lobby issues a
// ticket for a join that is about to happen, and the book below remembers a used ticket until
// it expires, so the lifetime bounds how long it holds each. A day covers a watcher's page left
// open (it reconnects with its ticket after a drop) while the book stays small.
inline constexpr int64_t max_ticket_lifetime_s = 24 * 3600;
// The most tickets the book remembers at once (used players' tickets until they expire,
// watchers' while in use): 65,536 x about 100 bytes, 6.5 MB. Only tickets the key signed get
// here, so only a lobby can fill it (18 player joins a second for a whole day's lifetime); past
// it a new ticket is refused with room_full until old ones expire, never forgotten early
// (which would let one be used twice).
inline constexpr uint32_t max_tickets_remembered = 65'536;
// What `tandem ticket` gives a ticket to live when not told: five minutes, a lobby's join.
inline constexpr int64_t default_ticket_lifetime_s = 300;

struct TicketKey {
    std::vector<uint8_t> bytes;
};

// The key file, or what is wrong with it (a command-line mistake: `--ticket-key` names it).
Result<TicketKey, ServeUsageError> read_ticket_key(const std::string& path);

net::TicketMac ticket_mac(const TicketKey& key, std::span<const uint8_t> signed_bytes);
// Sets ticket.mac to the key's signature of its other fields.
void sign_ticket(const TicketKey& key, net::Ticket& ticket);
// Whether ticket.mac is the key's signature (compared in constant time).
bool signature_holds(const TicketKey& key, const net::Ticket& ticket);

// The tickets of one room: which the key signed, which are current and which were used.
// Pure: the time is passed in (Unix seconds), so every rule is tested without a clock.
class TicketBook {
public:
    TicketBook(TicketKey key, std::string room) : key_(std::move(key)), room_(std::move(room)) {}

    // nullopt: the ticket may admit now. In this order: ticket_forged (not the key's),
    // ticket_expired (now at or past its expiry), ticket_invalid (another room, or expiring
    // more than max_ticket_lifetime_s ahead), ticket_replayed (a player's used already, a
    // watcher's in use), room_full (the book is full).
    std::optional<net::ErrorCode> check(const net::Ticket& ticket, int64_t now_unix_s);
    // The ticket admitted a connection (it passed check): remembered until it expires
    // (a player's) or until released (a watcher's).
    void spend(const net::Ticket& ticket, int64_t now_unix_s);
    void release(const net::TicketNonce& nonce);
    size_t remembered() const { return spent_.size(); }
    const std::string& room() const { return room_; }

private:
    void forget_expired(int64_t now_unix_s);

    struct Spent {
        uint64_t expires = 0;
        net::Role role = net::Role::play;
    };
    TicketKey key_;
    std::string room_;
    std::map<net::TicketNonce, Spent> spent_;
    std::set<std::pair<uint64_t, net::TicketNonce>> by_expiry_;  // players' entries, to forget
};

// The wall clock as a ticket's expiry counts it (Unix seconds, UTC).
int64_t unix_now_s();

// The server's judge for a room: a TicketBook read with the wall clock.
std::shared_ptr<net::TicketJudge> ticket_judge(TicketKey key, std::string room);

// `tandem ticket ARGS...` (what follows `ticket`): prints one ticket, base64url without
// padding, on a line of its own; exit 0, or 2 with one line for a command-line mistake.
// `program`: the command as its messages name it (a game's own command: "<game> ticket").
int ticket_command(std::span<const std::string_view> args, std::ostream& out, std::ostream& err,
                   std::string_view program = "tandem ticket");
std::string ticket_help_text(std::string_view program = "tandem ticket");

// The ticket text `tandem ticket` prints and a page's ?ticket= carries (RFC 4648 base64url,
// no padding), and back (nullopt: not base64url).
std::string base64url(std::span<const uint8_t> bytes);
std::optional<std::vector<uint8_t>> from_base64url(std::string_view text);

}  // namespace tandem::server
