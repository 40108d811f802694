// Load generator for `tandem serve` on loopback: P players sending one small binary message
// per tick and W watchers reading everything, over raw sockets and epoll on one thread (a
// Node client tops out near 50k messages/s, below what a room with 1,000 watchers sends).
// With --game GAME it speaks the room's protocol (version 2) for that game, its hello and
// commands written by the kit's game codec (tandem/net/game_codec.hpp), so it loads any game
// `tandem serve --game` runs; without, it sends the stand-in room's raw bytes.
// It stops by itself after --seconds. Then, in the same run, it measures the kernel's
// floor: a bare send() of the same bytes to as many loopback sockets, CPU per send.
// With --rooms R it first makes R rooms of the server's game (POST /rooms) and spreads its
// clients over them, client i in room i % R (/ws/ROOM): many small rooms in one process.
// For the soak (build-scripts/soak): --from-addresses N spreads its clients over N loopback
// source addresses (127.0.2.1 ...), so each stays within the server's per-address budgets,
// and --tickets FILE gives client i the i-th ticket of FILE (one per line, as `tandem ticket`
// prints them) for a server that requires them.
// It must never be mistaken for a test: it asserts nothing and prints figures.
// Columns: server_cpu_share and step_share are cores (CPU seconds per second) of the whole
// server and of its world step; *_ns_per_frame divide the server's CPU (all of it, or without
// the step) by the frames it sent; ratio_without_step is the latter over the bare send().
// timer_floor_* is the lateness floor beside the server's tick lateness: a thread that does
// nothing but wake at the tick's rate on absolute deadlines (timerfd and epoll, as the server's
// Asio timer does), on the server's core (--timer-floor-cpu) at real-time priority where the
// system allows it (timer_floor_policy=fifo; otherwise other, which competes with the server).
// What it sees late is the kernel's and the host's delivery of a wake-up, which no server on
// that core can beat.
#include <arpa/inet.h>
#include <pthread.h>
#include <sched.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <optional>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "arena/sim.hpp"
#include "ships/sim.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/server/tickets.hpp"

namespace {

namespace net = tandem::net;

// A game as the load generator plays it: its hello, and player p's command at timer tick t as
// an input message (the only part that names a game's types).
struct LoadGame {
    std::string_view name;
    std::function<std::vector<uint8_t>(net::Role role, const std::optional<net::Ticket>& ticket)> hello;
    std::function<std::vector<uint8_t>(uint32_t sequence, uint64_t tick, uint32_t player)> input;
};

template <class G, class CommandAt>
LoadGame load_game(CommandAt command_at) {
    LoadGame game;
    game.name = G::name;
    game.hello = [](net::Role role, const std::optional<net::Ticket>& ticket) {
        net::Hello h = net::hello_for<G>(role);
        h.ticket = ticket;
        std::vector<uint8_t> out;
        net::encode(out, h);
        return out;
    };
    game.input = [command_at](uint32_t sequence, uint64_t tick, uint32_t player) {
        std::vector<uint8_t> out;
        net::encode(out, net::input_message<G>(sequence, command_at(tick, player)));
        return out;
    };
    return game;
}

// The games this generator loads: a new one is one line here (and its library in CMake).
std::vector<LoadGame> load_games() {
    return {
        // A slow circle per player, as a steering page's pointer moves.
        load_game<arena::Sim>([](uint64_t t, uint32_t p) {
            return arena::Steer{{tandem::Fx::from_int(static_cast<int32_t>((t + p * 37) % 400)),
                                 tandem::Fx::from_int(static_cast<int32_t>((t * 3 + p * 11) % 400))}};
        }),
        // Thrusting and firing, turning one way then the other for a second at a time.
        load_game<ships::Sim>([](uint64_t t, uint32_t p) {
            const uint64_t phase = (t / 30 + p) % 3;
            const uint8_t turn = phase == 0 ? ships::turn_left : phase == 1 ? ships::turn_right : 0;
            return ships::Command{static_cast<uint8_t>(ships::thrust | ships::fire | turn)};
        }),
    };
}

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
int64_t thread_cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "ws_load: %s: %s\n", what, std::strerror(errno));
    std::exit(1);
}

// `from`: the source address (host order), 0 for the kernel's choice.
int connect_loopback(uint16_t port, uint32_t from = 0) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) fail("socket");
    if (from != 0) {
        sockaddr_in local{};
        local.sin_family = AF_INET;
        local.sin_addr.s_addr = htonl(from);
        if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) fail("bind");
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) fail("connect");
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

void send_all(int fd, const uint8_t* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("send");
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
}

// Blocking upgrade; the handshake is not what is measured.
void upgrade(int fd, uint16_t port, const std::string& path) {
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                                "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    send_all(fd, reinterpret_cast<const uint8_t*>(request.data()), request.size());
    std::string head;
    char c;
    while (head.size() < 4 || head.compare(head.size() - 4, 4, "\r\n\r\n") != 0) {
        if (::recv(fd, &c, 1, 0) != 1) fail("handshake");
        head.push_back(c);
    }
    if (head.compare(0, 12, "HTTP/1.1 101") != 0) {
        std::fprintf(stderr, "ws_load: upgrade refused: %s\n", head.c_str());
        std::exit(1);
    }
}

// One masked binary frame, as a client must send it.
std::vector<uint8_t> client_frame(const std::vector<uint8_t>& payload) {
    // Built with push_back: inserting into a vector made from an initializer list trips
    // GCC 12's false -Warray-bounds on memmove (GCC bug 107852).
    const uint8_t mask[4] = {0x12, 0x34, 0x56, 0x78};
    std::vector<uint8_t> out;
    out.reserve(6 + payload.size());
    out.push_back(0x82);
    if (payload.size() < 126) {
        out.push_back(static_cast<uint8_t>(0x80 | payload.size()));
    } else {   // a hello with a long ticket (client messages are at most 256 bytes)
        out.push_back(0x80 | 126);
        out.push_back(static_cast<uint8_t>(payload.size() >> 8));
        out.push_back(static_cast<uint8_t>(payload.size() & 0xFF));
    }
    for (const uint8_t m : mask) out.push_back(m);
    for (size_t i = 0; i < payload.size(); ++i) out.push_back(payload[i] ^ mask[i % 4]);
    return out;
}

struct Client {
    int fd = -1;
    bool player = false;
    uint64_t frame_tick = 0;    // the newest frame's tick and digest (protocol mode), for acks
    uint64_t frame_digest = 0;
    uint64_t bytes = 0;     // everything read, headers included
    uint64_t messages = 0;  // whole server frames read
    uint32_t largest = 0;   // largest payload seen
    std::vector<uint8_t> pending;
};

// Counts whole frames in what arrived (server frames are unmasked, one frame per message).
void consume(Client& c, const uint8_t* data, size_t n) {
    c.bytes += n;
    c.pending.insert(c.pending.end(), data, data + n);
    size_t at = 0;
    for (;;) {
        if (c.pending.size() - at < 2) break;
        uint64_t length = c.pending[at + 1] & 0x7F;
        size_t header = 2;
        if (length == 126) {
            if (c.pending.size() - at < 4) break;
            length = (uint64_t{c.pending[at + 2]} << 8) | c.pending[at + 3];
            header = 4;
        } else if (length == 127) {
            if (c.pending.size() - at < 10) break;
            length = 0;
            for (int i = 0; i < 8; ++i) length = (length << 8) | c.pending[at + 2 + i];
            header = 10;
        }
        if (c.pending.size() - at < header + length) break;
        ++c.messages;
        if (length > c.largest) c.largest = static_cast<uint32_t>(length);
        // A room frame: u8 type 0x82 | u64 tick | u64 digest | ... (little-endian).
        const uint8_t* payload = c.pending.data() + at + header;
        if (length >= 1 && payload[0] == static_cast<uint8_t>(net::MessageType::error)) {
            // The room refused this client (a hello for another game or build, a flood): say why.
            auto refusal = net::decode_server(std::span<const uint8_t>(payload, length));
            const auto* error = refusal.ok() ? std::get_if<net::ErrorMsg>(&*refusal) : nullptr;
            std::fprintf(stderr, "ws_load: the room refused a client: %s: %s\n",
                         error ? std::string(net::error_name(error->code)).c_str() : "malformed error",
                         error ? error->text.c_str() : "");
            std::exit(1);
        }
        if (length >= 17 && payload[0] == static_cast<uint8_t>(net::MessageType::frame)) {
            c.frame_tick = 0;
            c.frame_digest = 0;
            for (int i = 7; i >= 0; --i) {
                c.frame_tick = (c.frame_tick << 8) | payload[1 + i];
                c.frame_digest = (c.frame_digest << 8) | payload[9 + i];
            }
        }
        at += header + length;
    }
    c.pending.erase(c.pending.begin(), c.pending.begin() + static_cast<std::ptrdiff_t>(at));
}

// One HTTP request (with Connection: close) over a fresh connection: everything the server
// answered, until it closed.
std::string exchange(uint16_t port, const std::string& request) {
    const int fd = connect_loopback(port);
    send_all(fd, reinterpret_cast<const uint8_t*>(request.data()), request.size());
    std::string text;
    char chunk[65536];
    for (;;) {
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) break;
        text.append(chunk, static_cast<size_t>(n));
    }
    ::close(fd);
    return text;
}

// POST /rooms {}: the new room's WebSocket path ("/ws/ID"), from the 201's JSON; anything else
// ends the run, saying what the server answered.
std::string make_room(uint16_t port) {
    const std::string text = exchange(port, "POST /rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                            "Content-Length: 2\r\nConnection: close\r\n\r\n{}");
    const std::string key = "\"ws\":\"";
    const size_t at = text.find(key);
    const size_t end = at == std::string::npos ? at : text.find('"', at + key.size());
    if (text.compare(0, 12, "HTTP/1.1 201") != 0 || end == std::string::npos) {
        std::fprintf(stderr, "ws_load: POST /rooms was refused: %s\n", text.c_str());
        std::exit(1);
    }
    return text.substr(at + key.size(), end - at - key.size());
}

// GET /metrics; the figures by exact series name.
std::string scrape(uint16_t port) {
    return exchange(port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
}
double figure(const std::string& text, const std::string& series) {
    const size_t at = text.find("\n" + series + " ");
    if (at == std::string::npos) return -1;
    return std::strtod(text.c_str() + at + series.size() + 2, nullptr);
}

// utime + stime of a process, in nanoseconds.
int64_t process_cpu_ns(long pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE* f = std::fopen(path, "r");
    if (!f) return -1;
    char text[2048];
    const size_t n = std::fread(text, 1, sizeof text - 1, f);
    std::fclose(f);
    text[n] = 0;
    const char* p = std::strrchr(text, ')');  // the command name may hold spaces
    unsigned long long utime = 0, stime = 0;
    // Fields after the name: state, then 10 numbers, then utime (14th) and stime (15th).
    if (!p || std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2) return -1;
    return static_cast<int64_t>((utime + stime) * (1'000'000'000ull / static_cast<unsigned long long>(::sysconf(_SC_CLK_TCK))));
}

uint64_t option(int argc, char** argv, std::string_view name, uint64_t fallback) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (name == argv[i]) return std::strtoull(argv[i + 1], nullptr, 10);
    }
    return fallback;
}

// The floor: send() the same bytes to `count` loopback sockets, `rounds` times, draining
// the far ends between rounds; the sending thread's CPU per send.
double bare_send_ns(uint32_t count, uint32_t bytes, uint32_t rounds) {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) fail("bind");
    socklen_t len = sizeof addr;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
    ::listen(listener, 4096);
    std::vector<int> senders, receivers;
    for (uint32_t i = 0; i < count; ++i) {
        senders.push_back(connect_loopback(ntohs(addr.sin_port)));
        receivers.push_back(::accept(listener, nullptr, nullptr));
    }
    // A server frame's header in front, so the bytes on the wire are the same.
    std::vector<uint8_t> frame(bytes, 0x5A);
    std::vector<uint8_t> sink(1 << 16);
    int64_t cpu = 0;
    for (uint32_t r = 0; r < rounds; ++r) {
        const int64_t start = thread_cpu_ns();
        for (const int fd : senders) send_all(fd, frame.data(), frame.size());
        cpu += thread_cpu_ns() - start;
        for (const int fd : receivers) {
            size_t got = 0;
            while (got < frame.size()) {
                const ssize_t n = ::recv(fd, sink.data(), sink.size(), 0);
                if (n <= 0) fail("recv");
                got += static_cast<size_t>(n);
            }
        }
    }
    for (const int fd : senders) ::close(fd);
    for (const int fd : receivers) ::close(fd);
    ::close(listener);
    return static_cast<double>(cpu) / (double{1} * count * rounds);
}

}  // namespace

// The timer floor (see the top): wakes every `period` on absolute deadlines until `stop`,
// recording each wake-up's lateness while `measuring`. Pinned to `cpu` when it is >= 0.
struct TimerFloor {
    std::atomic<bool> measuring{false};
    std::atomic<bool> stop{false};
    std::vector<int64_t> lateness_ns;
    bool fifo = false;

    void run(int64_t period, int cpu) {
        if (cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            pthread_setaffinity_np(pthread_self(), sizeof set, &set);
        }
        sched_param param{};
        param.sched_priority = 1;
        fifo = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
        const int timer = ::timerfd_create(CLOCK_MONOTONIC, 0);
        const int poll = ::epoll_create1(0);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ::epoll_ctl(poll, EPOLL_CTL_ADD, timer, &ev);
        lateness_ns.reserve(1 << 16);
        for (int64_t deadline = now_ns() + period; !stop.load(std::memory_order_relaxed); deadline += period) {
            itimerspec at{};
            at.it_value.tv_sec = deadline / 1'000'000'000;
            at.it_value.tv_nsec = deadline % 1'000'000'000;
            ::timerfd_settime(timer, TFD_TIMER_ABSTIME, &at, nullptr);
            epoll_event out{};
            if (::epoll_wait(poll, &out, 1, 1000) != 1) continue;
            uint64_t expirations = 0;
            if (::read(timer, &expirations, sizeof expirations) < 0) continue;
            const int64_t late = now_ns() - deadline;
            if (measuring.load(std::memory_order_relaxed)) lateness_ns.push_back(late);
            // A wake-up later than a whole period skips the deadlines it missed, as a tick loop would.
            if (late > period) deadline += (late / period) * period;
        }
        ::close(poll);
        ::close(timer);
    }

    // The q-quantile in microseconds (nearest rank), 0 with no samples.
    double quantile_us(double q) {
        if (lateness_ns.empty()) return 0;
        std::vector<int64_t> sorted = lateness_ns;
        std::sort(sorted.begin(), sorted.end());
        const auto rank = static_cast<size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
        return static_cast<double>(sorted[rank]) * 1e-3;
    }
};

// usage: ws_load --port N [--players P] [--watchers W] [--seconds S] [--hz 60] [--message-bytes 13]
//                [--server-pid PID] [--game arena|ships (the real room's protocol)] [--timer-floor-cpu C]
//                [--ack-burst 1] [--from-addresses N] [--tickets FILE] [--rooms R]
// Prints one line of key=value figures.
int main(int argc, char** argv) {
    const auto port = static_cast<uint16_t>(option(argc, argv, "--port", 0));
    const auto players = static_cast<uint32_t>(option(argc, argv, "--players", 16));
    const auto watchers = static_cast<uint32_t>(option(argc, argv, "--watchers", 0));
    const auto seconds = option(argc, argv, "--seconds", 20);
    const auto hz = option(argc, argv, "--hz", 60);
    const auto message_bytes = static_cast<uint32_t>(option(argc, argv, "--message-bytes", 13));
    const auto server_pid = static_cast<long>(option(argc, argv, "--server-pid", 0));
    const auto floor_cpu = static_cast<int>(option(argc, argv, "--timer-floor-cpu", -1));
    // Each client acks every sixth tick (ten times a second at 60 Hz), on its own phase: pages'
    // ack timers are independent, so a room receives about a sixth of its acks each tick.
    // --ack-burst 1 makes every client ack on the same tick instead (all 1,000 acks of a
    // second's tenth in one burst), the synchronised worst case.
    const bool ack_spread = option(argc, argv, "--ack-burst", 0) == 0;
    // Protocol mode (the real room): the game's hello (its name and fingerprint hash), one
    // command per player per tick, and an ack of the newest frame ten times a second, as a page does.
    const std::vector<LoadGame> games = load_games();
    const LoadGame* game = nullptr;
    std::string game_names;
    for (const LoadGame& g : games) game_names += (game_names.empty() ? "" : ", ") + std::string(g.name);
    for (int i = 1; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--fingerprint") {
            std::fprintf(stderr, "ws_load: --fingerprint is gone: --game GAME sends that game's hello (%s)\n", game_names.c_str());
            return 2;
        }
        if (std::string_view(argv[i]) != "--game") continue;
        for (const LoadGame& g : games) {
            if (i + 1 < argc && g.name == argv[i + 1]) game = &g;
        }
        if (!game) {
            std::fprintf(stderr, "ws_load: --game expects one of %s\n", game_names.c_str());
            return 2;
        }
    }
    const bool protocol = game != nullptr;
    const auto from_addresses = static_cast<uint32_t>(option(argc, argv, "--from-addresses", 0));
    const auto rooms = static_cast<uint32_t>(option(argc, argv, "--rooms", 0));
    if (port == 0 || hz == 0 || seconds == 0 || seconds > 86'400 || players + watchers > 20'000 || message_bytes < 1 ||
        message_bytes > 125 || from_addresses > 250 || rooms > 1024 || (rooms > 0 && !protocol)) {
        std::fprintf(stderr,
                     "usage: ws_load --port N [--players P] [--watchers W] [--seconds 1..86400] [--hz HZ] "
                     "[--message-bytes 1..125] [--game %s] [--from-addresses 0..250] [--tickets FILE] "
                     "[--rooms 0..1024, with --game] (P + W <= 20000)\n",
                     game_names.c_str());
        return 2;
    }
    std::vector<std::string> paths;
    for (uint32_t r = 0; r < rooms; ++r) paths.push_back(make_room(port));
    if (paths.empty()) paths.emplace_back("/ws");
    std::vector<std::optional<net::Ticket>> tickets(players + watchers);
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::string_view(argv[i]) != "--tickets") continue;
        FILE* f = std::fopen(argv[i + 1], "r");
        if (!f) fail("--tickets");
        char line[1024];
        for (size_t k = 0; k < tickets.size() && std::fgets(line, sizeof line, f); ++k) {
            std::string_view text(line);
            while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
            const auto bytes = tandem::server::from_base64url(text);
            auto ticket = bytes ? net::decode_ticket(*bytes) : tandem::Result<net::Ticket, net::ProtocolError>(net::ProtocolError::empty);
            if (!ticket.ok()) {
                std::fprintf(stderr, "ws_load: ticket %zu of %s does not decode\n", k + 1, argv[i + 1]);
                return 2;
            }
            tickets[k] = std::move(ticket).value();
        }
        std::fclose(f);
    }

    std::vector<Client> clients(players + watchers);
    const int epoll = ::epoll_create1(0);
    for (uint32_t i = 0; i < clients.size(); ++i) {
        Client& c = clients[i];
        c.fd = connect_loopback(port, from_addresses ? (0x7F000200u | (1 + i % from_addresses)) : 0);
        c.player = i < players;
        upgrade(c.fd, port, paths[i % paths.size()]);
        if (protocol) {
            const std::vector<uint8_t> frame = client_frame(game->hello(c.player ? net::Role::play : net::Role::watch, tickets[i]));
            send_all(c.fd, frame.data(), frame.size());
        }
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u32 = i;
        if (::epoll_ctl(epoll, EPOLL_CTL_ADD, c.fd, &ev) != 0) fail("epoll_ctl");
    }
    const int timer = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
    const int64_t period = 1'000'000'000 / static_cast<int64_t>(hz);
    itimerspec spec{};
    spec.it_interval.tv_nsec = period;
    spec.it_value.tv_nsec = period;
    ::timerfd_settime(timer, 0, &spec, nullptr);
    epoll_event tev{};
    tev.events = EPOLLIN;
    tev.data.u32 = UINT32_MAX;
    ::epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &tev);

    std::vector<uint8_t> payload(message_bytes, 0);
    std::vector<uint8_t> buffer(1 << 16);
    std::vector<epoll_event> events(1024);
    uint64_t sent = 0;
    uint64_t timer_ticks = 0;
    // One loop for the settling second and the measured window alike, so a watcher is
    // read and acked from its first frame (the room pauses a stream nobody acks).
    auto run_until = [&](int64_t until) {
        while (now_ns() < until) {
            const int n = ::epoll_wait(epoll, events.data(), static_cast<int>(events.size()), 50);
            for (int e = 0; e < n; ++e) {
                if (events[e].data.u32 == UINT32_MAX) {
                    uint64_t expirations = 0;
                    if (::read(timer, &expirations, sizeof expirations) < 0) continue;
                    ++timer_ticks;
                    for (uint32_t p = 0; p < players; ++p) {
                        if (protocol) {
                            // Sequence numbers start at 1 and increase per client: one per timer tick.
                            payload = game->input(static_cast<uint32_t>(timer_ticks), timer_ticks, p);
                        } else {
                            payload[0] = static_cast<uint8_t>(sent & 0x7F);  // never a stand-in command byte (0xC1..)
                        }
                        const std::vector<uint8_t> frame = client_frame(payload);
                        send_all(clients[p].fd, frame.data(), frame.size());
                        ++sent;
                    }
                    const uint64_t ack_every = hz / 10 == 0 ? 1 : hz / 10;
                    if (protocol && (ack_spread || timer_ticks % ack_every == 0)) {
                        for (uint32_t i = 0; i < clients.size(); ++i) {
                            const Client& c = clients[i];
                            if (c.frame_tick == 0) continue;
                            if (ack_spread && (timer_ticks + i) % ack_every != 0) continue;
                            std::vector<uint8_t> ack;
                            net::encode(ack, net::Ack{true, c.frame_tick, c.frame_digest});
                            const std::vector<uint8_t> frame = client_frame(ack);
                            send_all(c.fd, frame.data(), frame.size());
                        }
                    }
                    continue;
                }
                Client& c = clients[events[e].data.u32];
                const ssize_t got = ::recv(c.fd, buffer.data(), buffer.size(), MSG_DONTWAIT);
                if (got > 0) consume(c, buffer.data(), static_cast<size_t>(got));
                if (got == 0) {
                    std::fprintf(stderr, "ws_load: the server closed a connection\n");
                    std::exit(1);
                }
            }
        }
    };
    TimerFloor timer_floor;
    std::thread floor_thread([&] { timer_floor.run(period, floor_cpu); });
    run_until(now_ns() + 1'000'000'000);  // settle: the handshakes' aftermath, unmeasured
    for (Client& c : clients) c.bytes = 0;
    sent = 0;
    const std::string before = scrape(port);
    const int64_t cpu_before = server_pid ? process_cpu_ns(server_pid) : 0;
    const int64_t started = now_ns();
    timer_floor.measuring = true;
    run_until(started + static_cast<int64_t>(seconds) * 1'000'000'000);
    timer_floor.measuring = false;
    timer_floor.stop = true;
    floor_thread.join();
    const double elapsed = static_cast<double>(now_ns() - started) * 1e-9;
    const int64_t cpu_after = server_pid ? process_cpu_ns(server_pid) : 0;
    const std::string after = scrape(port);
    uint64_t watcher_bytes = 0, player_bytes = 0;
    uint32_t largest = 0;
    for (const Client& c : clients) {
        (c.player ? player_bytes : watcher_bytes) += c.bytes;
        if (c.largest > largest) largest = c.largest;
    }
    for (const Client& c : clients) ::close(c.fd);

    // The floor, for as many recipients as this run had, with the window's mean message
    // (frames dominate; the largest message is a join's baseline, which the window holds
    // none of once the handshakes have settled). +2: the WebSocket header of a short message.
    const uint32_t recipients = static_cast<uint32_t>(clients.size());
    const double per_client = static_cast<double>(watchers ? watcher_bytes / watchers : player_bytes / players) / elapsed;
    // Per-client rates from the server's own counters over the window: what the kernel had
    // buffered before the window (the connection phase) does not inflate them.
    auto delta = [&](const char* series) { return figure(after, series) - figure(before, series); };
    const double frames = delta("tandem_ws_frames_sent_total");
    const double mean_message = delta("tandem_ws_bytes_sent_total") / frames;
    const double floor_ns = bare_send_ns(recipients, static_cast<uint32_t>(mean_message + 0.5) + 2, 200);
    const double recipients_d = static_cast<double>(recipients);
    const double server_cpu = static_cast<double>(cpu_after - cpu_before);
    const double server_cpu_per_frame = server_cpu / frames;
    // The world step does not depend on who receives; without it, what is left is the cost
    // that grows with recipients (reading inputs and acks, framing, writing).
    const double step_ns = 1e9 * delta("tandem_tick_step_seconds_sum");
    const double rest_per_frame = (server_cpu - step_ns) / frames;
    // Every room's ticks over the window, from the lateness histogram: the share that started
    // within 1 and 2 ms of their boundary (p99 <= 2 ms is a share of 0.99 or more). With many
    // rooms the window quantiles below cover only the last 1,024 ticks of them all.
    const double ticks_run = delta("tandem_tick_lateness_seconds_count");
    const double within_1ms = delta("tandem_tick_lateness_seconds_bucket{le=\"0.001\"}") / ticks_run;
    const double within_2ms = delta("tandem_tick_lateness_seconds_bucket{le=\"0.002\"}") / ticks_run;
    std::printf("rooms=%zu ticks_run=%.0f within_1ms=%.4f within_2ms=%.4f ", paths.size(), ticks_run, within_1ms, within_2ms);
    std::printf("players=%u watchers=%u seconds=%.1f inputs_sent_per_s=%.0f messages_per_client_per_s=%.1f "
                "bytes_per_client_per_s=%.0f mean_message=%.0f largest_message=%u server_cpu_share=%.3f "
                "step_share=%.3f server_cpu_ns_per_frame=%.0f without_step_ns_per_frame=%.0f bare_send_ns=%.0f "
                "ratio_without_step=%.2f lateness_p50_us=%.0f lateness_p99_us=%.0f "
                "lateness_max_us=%.0f late_ticks=%.0f dropped_ticks=%.0f rss_mb=%.1f client_read_per_s=%.0f "
                "timer_floor_p50_us=%.0f timer_floor_p99_us=%.0f timer_floor_max_us=%.0f timer_floor_policy=%s\n",
                players, watchers, elapsed, static_cast<double>(sent) / elapsed, frames / elapsed / recipients_d,
                delta("tandem_ws_bytes_sent_total") / elapsed / recipients_d, mean_message, largest,
                server_cpu * 1e-9 / elapsed, step_ns * 1e-9 / elapsed, server_cpu_per_frame, rest_per_frame, floor_ns,
                rest_per_frame / floor_ns,
                1e6 * figure(after, "tandem_tick_lateness_window_seconds{quantile=\"0.5\"}"),
                1e6 * figure(after, "tandem_tick_lateness_window_seconds{quantile=\"0.99\"}"),
                1e6 * figure(after, "tandem_tick_lateness_window_seconds{quantile=\"1\"}"),
                delta("tandem_late_ticks_total"), delta("tandem_dropped_ticks_total"),
                figure(after, "process_resident_memory_bytes") / 1e6, per_client, timer_floor.quantile_us(0.5),
                timer_floor.quantile_us(0.99), timer_floor.quantile_us(1.0), timer_floor.fifo ? "fifo" : "other");
    return 0;
}
