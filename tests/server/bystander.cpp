// A bystander for the hostile tests (tests/server/hostile.test.mjs) and the soak: one real
// client of the arena's room, the kit's own ClientSession<arena::Sim> over a raw loopback
// WebSocket, that plays (a slow circle of steers) or watches and verifies every tick's digest
// while strangers attack the same server. It decides nothing: it reports what it saw as JSON
// lines on stdout (a status line every 250 ms, a final line at the end) and the test judges.
//
// usage: tandem_test_bystander --port N [--from ADDR] [--role play|watch] [--ticket TEXT]
//                              [--seconds S] [--gaps-file FILE]
// --gaps-file: every frame gap as a line "MS_SINCE_START GAP_MS" (the soak's time series).
// It stops after --seconds, when its stdin ends (the test closes it) or on SIGTERM, or when the
// server closes it (it never reconnects: a bystander that had to is a failure to report).
// Frame gaps: the time between two consecutive frame messages arriving, after the first.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/server/tickets.hpp"

namespace {

namespace net = tandem::net;

volatile std::sig_atomic_t stop_requested = 0;
void on_signal(int) { stop_requested = 1; }

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void die(const std::string& what) {
    std::printf("{\"event\":\"error\",\"what\":\"%s\"}\n", what.c_str());
    std::fflush(stdout);
    std::exit(1);
}

void send_all(int fd, const uint8_t* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            pollfd p{fd, POLLOUT, 0};
            ::poll(&p, 1, 10);
            continue;
        }
        if (n <= 0) return;  // the reader notices the end
        data += n;
        size -= static_cast<size_t>(n);
    }
}

// One masked client frame.
void send_frame(int fd, uint8_t opcode, std::span<const uint8_t> payload) {
    std::vector<uint8_t> out{static_cast<uint8_t>(0x80 | opcode)};
    if (payload.size() < 126) {
        out.push_back(static_cast<uint8_t>(0x80 | payload.size()));
    } else {
        out.push_back(0x80 | 126);
        out.push_back(static_cast<uint8_t>(payload.size() >> 8));
        out.push_back(static_cast<uint8_t>(payload.size() & 0xFF));
    }
    const uint8_t mask[4] = {0x5A, 0x13, 0xC7, 0x2E};
    out.insert(out.end(), mask, mask + 4);
    for (size_t i = 0; i < payload.size(); ++i) out.push_back(payload[i] ^ mask[i % 4]);
    send_all(fd, out.data(), out.size());
}

struct Gaps {
    std::vector<double> ms;
    double quantile(double q) const {
        if (ms.empty()) return 0;
        std::vector<double> sorted = ms;
        std::sort(sorted.begin(), sorted.end());
        const size_t rank = static_cast<size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
        return sorted[std::min(rank, sorted.size() - 1)];
    }
    double max() const { return ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end()); }
};

}  // namespace

int main(int argc, char** argv) {
    uint16_t port = 0;
    std::string from = "127.0.0.1";
    net::Role role = net::Role::play;
    std::string ticket_text;
    double seconds = 1e9;
    std::string gaps_path;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string_view flag = argv[i];
        const std::string value = argv[i + 1];
        if (flag == "--port") port = static_cast<uint16_t>(std::stoul(value));
        else if (flag == "--from") from = value;
        else if (flag == "--role") role = value == "watch" ? net::Role::watch : net::Role::play;
        else if (flag == "--ticket") ticket_text = value;
        else if (flag == "--seconds") seconds = std::stod(value);
        else if (flag == "--gaps-file") gaps_path = value;
        else die("unknown option " + std::string(flag));
    }
    if (port == 0) die("--port is required");
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    std::signal(SIGPIPE, SIG_IGN);

    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    if (::inet_pton(AF_INET, from.c_str(), &local.sin_addr) != 1) die("--from is not an IPv4 address");
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) die("bind");
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(port);
    server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0) die("connect");
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const std::string request = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    send_all(fd, reinterpret_cast<const uint8_t*>(request.data()), request.size());
    std::string head;
    std::vector<uint8_t> buffer;
    for (;;) {
        uint8_t chunk[4096];
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) die("the upgrade got no answer");
        head.append(reinterpret_cast<const char*>(chunk), static_cast<size_t>(n));
        const size_t end = head.find("\r\n\r\n");
        if (end == std::string::npos) continue;
        if (head.rfind("HTTP/1.1 101", 0) != 0) die("upgrade refused: " + head.substr(0, head.find('\r')));
        buffer.assign(head.begin() + static_cast<std::ptrdiff_t>(end + 4), head.end());
        break;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    ::fcntl(0, F_SETFL, ::fcntl(0, F_GETFL) | O_NONBLOCK);

    const int64_t started = now_ns();
    net::ClientSession<arena::Sim> session(role, started);
    if (!ticket_text.empty()) {
        const auto bytes = tandem::server::from_base64url(ticket_text);
        if (!bytes) die("--ticket is not base64url");
        auto ticket = net::decode_ticket(*bytes);
        if (!ticket.ok()) die("--ticket does not decode: " + std::string(ticket.message()));
        session.set_ticket(std::move(ticket).value());
    }
    session.on_connected(started);

    Gaps gaps;
    std::FILE* gaps_file = gaps_path.empty() ? nullptr : std::fopen(gaps_path.c_str(), "w");
    if (!gaps_path.empty() && gaps_file == nullptr) die("cannot write --gaps-file");
    int64_t last_frame_at = -1;
    uint64_t frames = 0;
    int close_code = -1;
    bool open = true;
    bool stdin_open = true;
    int64_t last_status = started;
    std::vector<std::vector<uint8_t>> outgoing;
    auto report = [&](const char* event, int64_t now) {
        const net::SessionFigures f = session.figures();
        std::printf("{\"event\":\"%s\",\"ms\":%.0f,\"open\":%s,\"close_code\":%d,\"player\":%u,\"verified_tick\":%llu,"
                    "\"verified_ticks\":%llu,\"mismatches\":%llu,\"baselines\":%llu,\"resyncs\":%llu,\"frames\":%llu,"
                    "\"gap_p99_ms\":%.1f,\"gap_max_ms\":%.1f,\"refused\":\"%s\",\"malformed_in\":%llu}\n",
                    event, static_cast<double>(now - started) / 1e6, open ? "true" : "false", close_code, f.player,
                    static_cast<unsigned long long>(f.verified_tick), static_cast<unsigned long long>(f.verified_ticks),
                    static_cast<unsigned long long>(f.mismatches), static_cast<unsigned long long>(f.baselines),
                    static_cast<unsigned long long>(f.resyncs), static_cast<unsigned long long>(frames), gaps.quantile(0.99),
                    gaps.max(), f.refused ? std::string(net::error_name(*f.refused)).c_str() : "",
                    static_cast<unsigned long long>(f.malformed_in));
        std::fflush(stdout);
    };

    while (!stop_requested && open && stdin_open && static_cast<double>(now_ns() - started) < seconds * 1e9) {
        pollfd p[2] = {{fd, POLLIN, 0}, {0, POLLIN, 0}};
        ::poll(p, 2, 2);
        if (p[1].revents != 0) {
            char scratch[256];
            const ssize_t n = ::read(0, scratch, sizeof scratch);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) stdin_open = false;
        }
        for (;;) {
            uint8_t chunk[65536];
            const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n > 0) {
                buffer.insert(buffer.end(), chunk, chunk + n);
                continue;
            }
            if (n == 0 || (errno != EAGAIN && errno != EINTR)) open = false;
            break;
        }
        // Whole frames (the server's are unmasked, one message each).
        size_t at = 0;
        while (buffer.size() - at >= 2) {
            const uint8_t opcode = buffer[at] & 0x0F;
            uint64_t length = buffer[at + 1] & 0x7F;
            size_t header = 2;
            if (length == 126) {
                if (buffer.size() - at < 4) break;
                length = (uint64_t{buffer[at + 2]} << 8) | buffer[at + 3];
                header = 4;
            } else if (length == 127) {
                if (buffer.size() - at < 10) break;
                length = 0;
                for (int i = 0; i < 8; ++i) length = (length << 8) | buffer[at + 2 + static_cast<size_t>(i)];
                header = 10;
            }
            if (buffer.size() - at < header + length) break;
            const std::span<const uint8_t> payload(buffer.data() + at + header, static_cast<size_t>(length));
            const int64_t now = now_ns();
            if (opcode == 0x2) {
                if (!payload.empty() && payload[0] == static_cast<uint8_t>(net::MessageType::frame)) {
                    if (last_frame_at >= 0) {
                        gaps.ms.push_back(static_cast<double>(now - last_frame_at) / 1e6);
                        if (gaps_file) std::fprintf(gaps_file, "%.0f %.2f\n", static_cast<double>(now - started) / 1e6, gaps.ms.back());
                    }
                    last_frame_at = now;
                    ++frames;
                }
                session.receive(payload, now);
            } else if (opcode == 0x9) {
                send_frame(fd, 0xA, payload);
            } else if (opcode == 0x8) {
                close_code = payload.size() >= 2 ? (payload[0] << 8) | payload[1] : 1005;
                send_frame(fd, 0x8, payload.subspan(0, std::min<size_t>(2, payload.size())));
                open = false;
            }
            at += header + static_cast<size_t>(length);
        }
        buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(at));

        const int64_t now = now_ns();
        session.advance(now, 4'000'000);
        if (role == net::Role::play) {
            const int64_t t = (now - started) / 16'666'667;
            session.send_command(arena::Steer{{tandem::Fx::from_int(static_cast<int32_t>(t % 400)),
                                               tandem::Fx::from_int(static_cast<int32_t>((t * 3) % 400))}},
                                 now);
        }
        outgoing.clear();
        session.take_outgoing(outgoing);
        for (const auto& m : outgoing) send_frame(fd, 0x2, m);
        if (now - last_status >= 250'000'000) {
            last_status = now;
            report("status", now);
        }
    }
    if (open) {
        const uint8_t normal[2] = {0x03, 0xE8};
        send_frame(fd, 0x8, normal);
    }
    report("final", now_ns());
    if (gaps_file) std::fclose(gaps_file);
    ::close(fd);
    return 0;
}
