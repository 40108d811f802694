// Tickets (tandem/server/tickets.hpp): the key file, HMAC-SHA256 through OpenSSL's one-shot
// HMAC(), the book of used tickets and `tandem ticket`. The signature is compared with
// CRYPTO_memcmp, so the time a refusal takes says nothing about how much of a forgery matched.
#include "tandem/server/tickets.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <ostream>

#include "tandem/server/os_random.hpp"

namespace tandem::server {

Result<TicketKey, ServeUsageError> read_ticket_key(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return ServeUsageError{"--ticket-key cannot read '" + path + "'"};
    // Read a little past the bound (trailing whitespace is allowed), never a whole large file.
    std::vector<uint8_t> bytes;
    char c = 0;
    while (bytes.size() <= max_ticket_key_bytes + 64 && in.get(c)) bytes.push_back(static_cast<uint8_t>(c));
    while (!bytes.empty() && (bytes.back() == '\n' || bytes.back() == '\r' || bytes.back() == ' ' || bytes.back() == '\t')) {
        bytes.pop_back();
    }
    if (bytes.size() > max_ticket_key_bytes) {
        return ServeUsageError{"--ticket-key expects a file of at most " + std::to_string(max_ticket_key_bytes) +
                               " bytes of key (got more in '" + path + "')"};
    }
    if (bytes.size() < min_ticket_key_bytes) {
        return ServeUsageError{"--ticket-key expects a file holding a key of " + std::to_string(min_ticket_key_bytes) + " to " +
                               std::to_string(max_ticket_key_bytes) + " bytes, e.g. made by 'openssl rand -hex 32' (got " +
                               std::to_string(bytes.size()) + " bytes in '" + path + "')"};
    }
    return TicketKey{std::move(bytes)};
}

net::TicketMac ticket_mac(const TicketKey& key, std::span<const uint8_t> signed_bytes) {
    net::TicketMac mac{};
    unsigned int length = 0;
    HMAC(EVP_sha256(), key.bytes.data(), static_cast<int>(key.bytes.size()), signed_bytes.data(), signed_bytes.size(),
         mac.data(), &length);
    return mac;
}

void sign_ticket(const TicketKey& key, net::Ticket& ticket) { ticket.mac = ticket_mac(key, net::ticket_signed_bytes(ticket)); }

bool signature_holds(const TicketKey& key, const net::Ticket& ticket) {
    const net::TicketMac expected = ticket_mac(key, net::ticket_signed_bytes(ticket));
    return CRYPTO_memcmp(expected.data(), ticket.mac.data(), expected.size()) == 0;
}

std::optional<net::ErrorCode> TicketBook::check(const net::Ticket& ticket, int64_t now_unix_s) {
    if (!signature_holds(key_, ticket)) return net::ErrorCode::ticket_forged;
    const uint64_t now = now_unix_s < 0 ? 0 : static_cast<uint64_t>(now_unix_s);
    if (ticket.expires_unix_s <= now) return net::ErrorCode::ticket_expired;
    if (ticket.expires_unix_s - now > static_cast<uint64_t>(max_ticket_lifetime_s)) return net::ErrorCode::ticket_invalid;
    if (ticket.room != room_) return net::ErrorCode::ticket_invalid;
    if (spent_.count(ticket.nonce) != 0) return net::ErrorCode::ticket_replayed;
    forget_expired(now_unix_s);
    if (spent_.size() >= max_tickets_remembered) return net::ErrorCode::room_full;
    return std::nullopt;
}

void TicketBook::spend(const net::Ticket& ticket, int64_t now_unix_s) {
    forget_expired(now_unix_s);
    if (!spent_.emplace(ticket.nonce, Spent{ticket.expires_unix_s, ticket.role}).second) return;
    if (ticket.role == net::Role::play) by_expiry_.emplace(ticket.expires_unix_s, ticket.nonce);
}

void TicketBook::release(const net::TicketNonce& nonce) {
    const auto it = spent_.find(nonce);
    // Only a watcher's ticket is given back; a player's stays used until it expires.
    if (it == spent_.end() || it->second.role != net::Role::watch) return;
    spent_.erase(it);
}

void TicketBook::forget_expired(int64_t now_unix_s) {
    const uint64_t now = now_unix_s < 0 ? 0 : static_cast<uint64_t>(now_unix_s);
    // An expired ticket is refused as expired whether remembered or not: its entry can go.
    while (!by_expiry_.empty() && by_expiry_.begin()->first <= now) {
        spent_.erase(by_expiry_.begin()->second);
        by_expiry_.erase(by_expiry_.begin());
    }
}

int64_t unix_now_s() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {

class WallClockJudge final : public net::TicketJudge {
public:
    WallClockJudge(TicketKey key, std::string room) : book_(std::move(key), std::move(room)) {}
    std::optional<net::ErrorCode> check(const net::Ticket& ticket) override { return book_.check(ticket, unix_now_s()); }
    void spend(const net::Ticket& ticket) override { book_.spend(ticket, unix_now_s()); }
    void release(const net::TicketNonce& nonce) override { book_.release(nonce); }

private:
    TicketBook book_;
};

constexpr std::string_view base64url_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

}  // namespace

std::shared_ptr<net::TicketJudge> ticket_judge(TicketKey key, std::string room) {
    return std::make_shared<WallClockJudge>(std::move(key), std::move(room));
}

std::string base64url(std::span<const uint8_t> bytes) {
    std::string out;
    uint32_t bits = 0;
    int held = 0;
    for (const uint8_t b : bytes) {
        bits = (bits << 8) | b;
        held += 8;
        while (held >= 6) {
            held -= 6;
            out += base64url_alphabet[(bits >> held) & 0x3F];
        }
    }
    if (held > 0) out += base64url_alphabet[(bits << (6 - held)) & 0x3F];
    return out;
}

std::optional<std::vector<uint8_t>> from_base64url(std::string_view text) {
    if (text.size() % 4 == 1) return std::nullopt;  // no whole byte ends there
    std::vector<uint8_t> out;
    uint32_t bits = 0;
    int held = 0;
    for (const char c : text) {
        const size_t v = base64url_alphabet.find(c);
        if (v == std::string_view::npos) return std::nullopt;
        bits = (bits << 6) | static_cast<uint32_t>(v);
        held += 6;
        if (held >= 8) {
            held -= 8;
            out.push_back(static_cast<uint8_t>(bits >> held));
        }
    }
    // The leftover bits must be zeros, so each ticket has one spelling.
    if (held > 0 && (bits & ((1u << held) - 1)) != 0) return std::nullopt;
    return out;
}

std::string ticket_help_text(std::string_view program) {
    return "usage: " + std::string(program) + " --ticket-key FILE --role play|watch [--room NAME] [--player N]\n" +
           std::string(program.size() + 8, ' ') + "[--name TEXT] [--expires-in SECONDS | --expires-at UNIX_SECONDS]\n"
           "\n"
           "Mints one join ticket for a room whose server runs with --ticket-key FILE, as a lobby or\n"
           "matchmaker would, and prints it on one line (base64url): the page takes it as ?ticket=...,\n"
           "a ClientSession as set_ticket. A lobby in any language can mint the same bytes: see\n"
           "docs/scaling.md (\"Tickets\").\n"
           "\n"
           "options:\n"
           "  --ticket-key FILE      the key shared with the server (its bytes without trailing\n"
           "                         whitespace, 32 to 4096 of them)\n"
           "  --role play|watch      what the ticket admits: a player's seat or a watcher's place\n"
           "  --room NAME            the room it is for (the server's --room; default 'default'),\n"
           "                         1 to 64 of [A-Za-z0-9_-]\n"
           "  --player N             a player's seat, 1.." +
           std::to_string(net::max_players_per_room) +
           ", or 0 for any free seat (default 0; a watcher's is 0)\n"
           "  --name TEXT            the player's name for the lobby's books, 0 to 64 bytes of UTF-8\n"
           "  --expires-in SECONDS   it expires this long from now, 1.." +
           std::to_string(max_ticket_lifetime_s) +
           " (default " + std::to_string(default_ticket_lifetime_s) + ")\n"
           "  --expires-at SECONDS   it expires at this Unix time instead (a server refuses one that\n"
           "                         has passed, or lies more than a day ahead)\n"
           "  --help                 this text\n"
           "\n"
           "A player's ticket admits one hello; after a drop the seat's resume token takes it back.\n"
           "A watcher's admits one connection at a time until it expires. The nonce is 16 random\n"
           "bytes from the OS.\n"
           "\n"
           "exit status: 0 with the ticket printed, 2 for a command-line mistake.\n";
}

int ticket_command(std::span<const std::string_view> args, std::ostream& out, std::ostream& err,
                   std::string_view program) {
    std::optional<std::string> key_path;
    std::optional<net::Role> role;
    net::Ticket ticket;
    ticket.room = "default";
    std::optional<uint64_t> expires_in;
    std::optional<uint64_t> expires_at;
    std::vector<std::string_view> seen;
    const auto fail = [&](const std::string& message) {
        err << program << ": " << message << "\n";
        return 2;
    };
    const std::string accepted = "--ticket-key, --role, --room, --player, --name, --expires-in, --expires-at, --help";
    for (size_t i = 0; i < args.size(); ++i) {
        std::string_view flag = args[i];
        std::optional<std::string_view> inline_value;
        if (const size_t eq = flag.find('='); flag.starts_with("--") && eq != std::string_view::npos) {
            inline_value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
        }
        if (flag == "--help" || flag == "-h") {
            out << ticket_help_text(program);
            return 0;
        }
        static constexpr std::string_view known[] = {"--ticket-key", "--role", "--room", "--player", "--name", "--expires-in", "--expires-at"};
        if (std::find(std::begin(known), std::end(known), flag) == std::end(known)) {
            return fail("unknown option '" + std::string(args[i]) + "' (accepted: " + accepted + ")");
        }
        if (std::find(seen.begin(), seen.end(), flag) != seen.end()) return fail(std::string(flag) + " given twice");
        seen.push_back(flag);
        std::string_view value;
        if (inline_value) {
            value = *inline_value;
        } else if (i + 1 < args.size() && (flag == "--name" || !args[i + 1].starts_with("--"))) {
            value = args[++i];
        } else {
            return fail("missing value for " + std::string(flag));
        }
        const std::string got = " (got '" + std::string(value) + "')";
        if (flag == "--ticket-key") {
            if (value.empty()) return fail("--ticket-key expects a file" + got);
            key_path = std::string(value);
        } else if (flag == "--role") {
            if (value == "play") role = net::Role::play;
            else if (value == "watch") role = net::Role::watch;
            else return fail("--role expects play or watch" + got);
        } else if (flag == "--room") {
            if (!net::valid_room_name(value)) return fail("--room expects a room's name, 1 to 64 of [A-Za-z0-9_-]" + got);
            ticket.room = std::string(value);
        } else if (flag == "--player") {
            const auto v = parse_flag_count(flag, value, 0, net::max_players_per_room);
            if (!v) return fail(std::string(v.message()));
            ticket.player = *v;
        } else if (flag == "--name") {
            net::Ticket probe;
            probe.room = "x";
            probe.name = std::string(value);
            std::vector<uint8_t> bytes;
            net::encode_ticket(bytes, probe);
            // The codec cuts a name past its bound or at a byte that is not UTF-8, and the
            // decoder reads back what was kept: anything else is not a name a ticket carries.
            const auto back = net::decode_ticket(bytes);
            if (!back.ok() || back->name != probe.name) return fail("--name expects 0 to 64 bytes of UTF-8" + got);
            ticket.name = probe.name;
        } else if (flag == "--expires-in") {
            const auto v = parse_flag_count(flag, value, 1, static_cast<uint32_t>(max_ticket_lifetime_s));
            if (!v) return fail(std::string(v.message()));
            expires_in = *v;
        } else if (flag == "--expires-at") {
            uint64_t v = 0;
            bool digits = !value.empty() && value.size() <= 19;
            for (const char c : value) {
                if (c < '0' || c > '9') digits = false;
                else v = v * 10 + static_cast<uint64_t>(c - '0');
            }
            if (!digits) return fail("--expires-at expects a Unix time in whole seconds" + got);
            expires_at = v;
        }
    }
    if (!key_path) return fail("missing --ticket-key FILE (the key the server was given)");
    if (!role) return fail("missing --role play|watch");
    if (expires_in && expires_at) return fail("--expires-in and --expires-at are exclusive");
    if (*role == net::Role::watch && ticket.player != 0) return fail("--player is a player's seat: a watcher's ticket names none");
    auto key = read_ticket_key(*key_path);
    if (!key.ok()) return fail(std::string(key.message()));
    ticket.role = *role;
    ticket.expires_unix_s = expires_at ? *expires_at : static_cast<uint64_t>(unix_now_s()) + expires_in.value_or(default_ticket_lifetime_s);
    os_random_bytes(ticket.nonce);
    sign_ticket(key.value(), ticket);
    std::vector<uint8_t> bytes;
    net::encode_ticket(bytes, ticket);
    out << base64url(bytes) << "\n";
    return 0;
}

}  // namespace tandem::server
