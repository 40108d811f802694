// The transport's life: listening, accepting (bounded by max_open_sockets), the rooms (made,
// closed when idle), handing a room's outbox to its connections, SIGINT/SIGTERM and the
// drain; and serve() and serve_command(), the entry points of server.hpp.
#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <ostream>
#include <tuple>
#include <utility>

#include "server/moved_room.hpp"
#include "server/transport.hpp"
#include "tandem/core/timestep.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/server/room_checkpointing.hpp"

namespace tandem::server::detail {

void Server::ws_closed(const std::shared_ptr<WsSession>& session, bool registered, const Ending& ending) {
    ws_handshaking_.erase(session);
    if (registered) {
        HostedRoom& room = session->room();
        room.sessions.erase(session->id());
        directory_.disconnected(room.id, now_ns());
        --figures_.connections_open;
        metrics_.connection_closed(ending.code, ending.reason);
        if (!room.closed) room_disconnect(room, session->id());
    } else {
        metrics_.handshake_refused(ending.reason);
    }
    sockets_closed(&session->address());
}

void Server::report_back(HostedRoom& room, RoomReport report, std::function<void()> then) {
    room.port->take_outbox(report.sends, report.closes);
    report.figures = room.port->figures();
    asio::post(io_, [this, held = room.shared_from_this(), report = std::move(report), then = std::move(then)]() mutable {
        deliver(*held, report);
        if (then) then();
    });
}

void Server::room_connect(const std::shared_ptr<WsSession>& s) {
    const int64_t now = now_ns();
    asio::post(s->room().strand, [this, s, now] {
        HostedRoom& room = s->room();
        if (room.stopped) {
            asio::post(io_, [s] { s->turned_away(); });
            return;
        }
        const ConnectionId id = room.port->connect(now, s->address());
        // Joined before the outbox is handed over: its first message (a greeting) is for it.
        asio::post(io_, [s, id] { s->joined(id); });
        report_back(room, RoomReport{});
    });
}

void Server::room_receive(const std::shared_ptr<WsSession>& s, std::vector<uint8_t> message, int64_t now) {
    HostedRoom& room = s->room();
    {
        const std::lock_guard lock(room.inbox_mutex);
        room.inbox.push_back({s, s->id(), std::move(message), now});
        // A drain already posted takes this message too: it runs after this read, and nothing
        // posted to the strand since (a connect, a disconnect) is this session's own.
        if (std::exchange(room.drain_posted, true)) return;
    }
    asio::post(room.strand, [this, held = room.shared_from_this()] { drain_inbox(*held); });
}

void Server::drain_inbox(HostedRoom& room) {
    std::vector<HostedRoom::Inbound> batch;
    {
        const std::lock_guard lock(room.inbox_mutex);
        batch.swap(room.inbox);
        room.drain_posted = false;
    }
    std::vector<std::shared_ptr<WsSession>> senders;
    senders.reserve(batch.size());
    for (HostedRoom::Inbound& in : batch) senders.push_back(std::move(in.session));
    auto handled = [senders = std::move(senders)] {
        for (const auto& s : senders) s->message_handled();
    };
    if (room.stopped) {
        asio::post(io_, std::move(handled));
        return;
    }
    for (const HostedRoom::Inbound& in : batch) {
        // A due tick before the next message: without it a busy room's tick would wait behind
        // every message of the drain (under a flood, 16 from each of its connections: tens of
        // milliseconds). A message read just before the boundary then lands after the tick,
        // as one a little later on the wire would.
        if (room.loop && now_ns() >= room.loop->next_boundary_ns()) on_tick(room);
        room.port->receive(in.id, in.message, in.received_ns);
    }
    report_back(room, RoomReport{}, std::move(handled));
}

void Server::room_disconnect(HostedRoom& room, ConnectionId id) {
    asio::post(room.strand, [this, held = room.shared_from_this(), id] {
        if (held->stopped) return;
        held->port->disconnect(id, now_ns());
        report_back(*held, RoomReport{});
    });
}

void Server::room_shut_down(HostedRoom& room, std::function<void()> then, bool retire) {
    asio::post(room.strand, [this, held = room.shared_from_this(), then = std::move(then), retire]() mutable {
        if (held->stopped) {
            asio::post(io_, std::move(then));
            return;
        }
        held->stopped = true;
        held->timer->cancel();
        if (retire) {
            held->port->retire(now_ns());
        } else {
            held->port->shut_down(now_ns());
        }
        report_back(*held, RoomReport{}, std::move(then));
    });
}

void Server::room_hand_off(HostedRoom& room, std::function<void(bool)> then) {
    asio::post(room.strand, [this, held = room.shared_from_this(), then = std::move(then)]() mutable {
        if (held->stopped) {
            asio::post(io_, [then = std::move(then)] { then(false); });
            return;
        }
        held->stopped = true;
        held->timer->cancel();
        const bool handed = held->port->hand_off(now_ns());
        report_back(*held, RoomReport{}, [then = std::move(then), handed] { then(handed); });
    });
}

void Server::send_on(HostedRoom& room, const std::string& url) {
    const SharedBytes greeting = room_moved_message(url);
    for (auto& [id, session] : std::map(room.sessions)) {
        CloseOrder close = room_moved_close(id);
        session->enqueue(greeting);
        session->close(close.code, std::move(close.reason));
    }
}

void Server::accept() {
    acceptor_.async_accept([this](const error_code& ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || draining_) return;
        Mark mark(*this, Activity::accept);
        if (!ec) {
            if (open_sockets_ >= limits_.max_open_sockets) {
                metrics_.connection_refused("max_open_sockets");
                error_code ignored;
                socket.close(ignored);
            } else {
                admit(std::move(socket));
            }
            accept();
            return;
        }
        // Out of descriptors or a transient error: try again shortly rather than spin.
        accept_retry_.expires_after(std::chrono::milliseconds(50));
        accept_retry_.async_wait([this](const error_code& e) {
            if (!e && !draining_) accept();
        });
    });
}

void Server::admit(tcp::socket socket) {
    error_code ec;
    const tcp::endpoint peer = socket.remote_endpoint(ec);
    if (ec) {  // gone already
        socket.close(ec);
        return;
    }
    const asio::ip::address a = peer.address();
    const AddressKey address = a.is_v4() ? address_key_v4(a.to_v4().to_uint()) : address_key_v6(a.to_v6().to_bytes());
    const AdmissionDecision decision = addresses_.admit(address);
    if (decision.what != Admission::admit) {
        metrics_.connection_refused(decision.reason);
        if (decision.what == Admission::drop) {
            socket.close(ec);
            return;
        }
        ++open_sockets_;
        auto refusal = std::make_shared<HttpRefusal>(*this, std::move(socket), address);
        refusals_.insert(refusal);
        refusal->start(decision.reason);
        return;
    }
    ++open_sockets_;
    socket.set_option(tcp::no_delay(true), ec);  // a frame must not wait for the next
    auto session = std::make_shared<HttpSession>(*this, std::move(socket), address);
    http_opened(session);
    session->start();
}

void Server::begin_drain() {
    if (draining_) return;
    draining_ = true;
    hosted_changed();   // nothing hosted, nothing adopted from now on
    error_code ignored;
    acceptor_.close(ignored);
    accept_retry_.cancel();
    idle_timer_.cancel();
    // Each room shuts down on its strand and closes its connections with 1001 after what it
    // queued; whatever it did not close, and every socket that is not a room connection yet,
    // goes the same way once its last outbox is handed over.
    // With a store, a room is handed off instead: its checkpoint and lease given back, its
    // clients kept waiting until a peer's scan takes the room and this process's (hurried) scan
    // learns which peer, when each client is sent there (set_moved); those no peer took within
    // handoff_wait_ns are closed with 1001 as without a store.
    auto close_all = [](HostedRoom& held) {
        for (auto& [id, session] : std::map(held.sessions)) session->close(close_going_away, "going_away");
    };
    for (auto& [name, room] : rooms_) {
        room->closed = true;
        if (!store_watch_) {
            room_shut_down(*room, [held = room, close_all] { close_all(*held); });
            continue;
        }
        room_hand_off(*room, [this, held = room, close_all](bool handed) {
            if (!handed) {
                close_all(*held);
                return;
            }
            handing_off_.insert(held->id);
            if (const auto moved = moved_.find(held->id); moved != moved_.end()) {
                send_on(*held, moved->second);
                handing_off_.erase(held->id);
            }
        });
    }
    if (store_watch_) {
        store_watch_->hurry();
        handoff_timer_.expires_after(duration(handoff_wait_ns));
        handoff_timer_.async_wait([this, close_all](const error_code& ec) {
            if (ec) return;
            for (const std::string& id : std::exchange(handing_off_, {})) {
                if (const auto found = rooms_.find(id); found != rooms_.end()) close_all(*found->second);
            }
        });
    }
    for (const auto& session : std::set(ws_handshaking_)) session->tear_down();
    for (const auto& session : std::set(http_sessions_)) session->tear_down();
    for (const auto& refusal : std::set(refusals_)) refusal->tear_down();
    // A hand-over may take its wait and then the close's timeout.
    drain_timer_.expires_after(duration(limits_.drain_deadline_ns + (store_watch_ ? handoff_wait_ns : 0)));
    drain_timer_.async_wait([this](const error_code& ec) {
        if (ec) return;
        io_.stop();  // what has not closed by now is dropped with the process
    });
    maybe_finish_drain();
}

int Server::run(std::ostream& out, std::ostream& err) {
    auto root = [&](const std::string& dir, std::string_view flag) {
        error_code ec;
        std::filesystem::path canonical = std::filesystem::canonical(dir, ec);
        if (ec || !std::filesystem::is_directory(canonical)) {
            err << options_.program << ": warning: no directory '" << dir << "' (" << flag << "): its URLs answer 404\n";
            return std::filesystem::path();
        }
        return canonical;
    };
    roots_.web = root(options_.web_dir, "--web");
    roots_.pkg = root(options_.pkg_dir, "--pkg");

    error_code ec;
    const asio::ip::address address = asio::ip::make_address(options_.host, ec);
    const std::string where = address.is_v6() ? "[" + options_.host + "]:" + std::to_string(options_.port)
                                              : options_.host + ":" + std::to_string(options_.port);
    if (!ec) {
        const tcp::endpoint endpoint(address, options_.port);
        acceptor_.open(endpoint.protocol(), ec);
        // SO_REUSEADDR lets a restarted server bind while old sockets sit in TIME_WAIT; on
        // Linux it never lets two servers listen on one port.
        if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
        if (!ec) acceptor_.bind(endpoint, ec);
        if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    }
    if (ec) {
        err << options_.program << ": cannot listen on " << where << ": " << ec.message() << "\n";
        return 1;
    }
    const uint16_t port = acceptor_.local_endpoint().port();

    // The page's own origin and localhost: a page elsewhere must be named with --allow-origin.
    auto origin_on = [&](const std::string& host) {
        std::string origin = "http://" + host;
        if (port != 80) {
            origin += ':';  // appended piecewise: ":" + string trips GCC 12's false -Wrestrict (bug 105329)
            origin += std::to_string(port);
        }
        return origin;
    };
    origins_ = {origin_on("localhost"), origin_on("127.0.0.1"), origin_on("[::1]")};
    if (!address.is_unspecified()) origins_.push_back(origin_on(address.is_v6() ? "[" + options_.host + "]" : options_.host));
    origins_.insert(origins_.end(), options_.allowed_origins.begin(), options_.allowed_origins.end());

    // A room with a thousand watchers needs more descriptors than the usual soft limit.
    struct ::rlimit files {};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &files);
    }

    // /healthz judges the default room's tick loop, as before there were others.
    health_policy_ = health_policy_for_step(step_ns_for_hz(default_room_->tick_hz));
    if (!options_.ticket_key_path.empty()) {
        auto key = read_ticket_key(options_.ticket_key_path);
        if (!key.ok()) {
            err << options_.program << ": " << key.message() << "\n";
            return 2;
        }
        ticket_key_ = std::move(key).value();
    }
    figures_.write_queue_cap_bytes = limits_.write_queue_cap_bytes;
    if (const char* path = std::getenv("TANDEM_SERVE_TRACE_LATE"); path != nullptr && *path != '\0') {
        trace_out_ = std::fopen(path, "w");
        if (trace_out_ == nullptr) {
            err << options_.program << ": cannot write TANDEM_SERVE_TRACE_LATE file '" << path << "'\n";
            return 2;
        }
        trace_.emplace();
    }
    if (const char* slice = std::getenv("TANDEM_SERVE_SEND_SLICE_US"); slice != nullptr && *slice != '\0') {
        char* end = nullptr;
        const long long us = std::strtoll(slice, &end, 10);
        if (*end != '\0' || us < 0 || us > 10'000'000) {
            err << options_.program << ": TANDEM_SERVE_SEND_SLICE_US expects microseconds, 0 to 10000000 (got '" << slice << "')\n";
            return 2;
        }
        slice_budget_ns_ = us * 1000;
    }

    signals_.async_wait([this](const error_code& e, int) {
        if (e) return;
        begin_drain();
        // A second signal while draining: stop at once.
        signals_.async_wait([this](const error_code& again, int) {
            if (!again) io_.stop();
        });
    });
    accept();
    rooms_[default_room_->id] = default_room_;
    directory_.add(default_room_->id, default_room_->game, AddressKey{}, now_ns(), /*permanent=*/true);
    metrics_.room_opened(default_room_->id);   // the first label: the default room's series are always its own
    default_room_->reported = default_room_->port->figures();   // before the pool shares it
    if (std::string problem; !start_ticking(*default_room_, &problem)) {
        err << options_.program << ": tick loop refused: " << problem << "\n";
        return 2;
    }
    schedule_idle_check();
    pool_work_.emplace(pool_.get_executor());
    for (uint32_t i = tick_threads(); i > 0; --i) pool_threads_.emplace_back([this] { pool_.run(); });
    start_store_watch();
    const std::string shown = address.is_v6() ? "[" + options_.host + "]" : options_.host;
    out << "listening on http://" << shown << ":" << port << "/" << std::endl;
    {
        const std::lock_guard lock(reply_gate_->mutex);
        reply_gate_->io = &io_;
    }
    io_.run();
    // Sessions still open when the loop stopped (the drain deadline passed): a read held for
    // a full queue owns its session, so it is let go here like every pending handler.
    for (auto& [name, room] : rooms_) {
        for (auto& [id, session] : room->sessions) session->drop_held_read();
    }
    // The tick pool ends once every strand's last handler has run: each room stopped (a drain
    // past its deadline may not have reached one, so it is stopped here), nothing left waiting.
    for (auto& [name, room] : rooms_) {
        asio::post(room->strand, [held = room] {
            held->stopped = true;
            held->timer->cancel();
        });
    }
    store_watch_.reset();   // stopped by the drain, or here when the loop stopped otherwise
    pool_work_.reset();
    for (std::thread& t : pool_threads_) t.join();
    pool_threads_.clear();
    {
        // A route's answer from now on has no server to go to.
        const std::lock_guard lock(reply_gate_->mutex);
        reply_gate_->io = nullptr;
    }
    for (const HttpRoute& route : routes_) {
        if (route.stop) route.stop();
    }
    return 0;
}


}  // namespace tandem::server::detail

namespace tandem::server {

using detail::Server;

namespace {

// The paths the transport answers itself; a route may take none of them.
std::optional<std::string> route_problem(const HttpRoute& route) {
    const std::string_view path = route.path;
    if (!path.starts_with('/') || path.find('?') != std::string_view::npos) {
        return "a route's path is a URL path without a query (got '" + route.path + "')";
    }
    if (path == "/" || path == "/ws" || path.starts_with("/ws/") || path == "/rooms" || path.starts_with("/rooms/") ||
        path == "/metrics" || path == "/healthz" || path == "/pkg" || path.starts_with("/pkg/")) {
        return "a route may not take " + route.path + " (the transport serves it)";
    }
    if (!route.handle) return "the route " + route.path + " has no handler";
    return std::nullopt;
}

}  // namespace

int serve(const ServeOptions& options, RoomPort& room, std::span<const HttpRoute> routes, const TransportLimits& limits,
          std::ostream& out, std::ostream& err, std::span<const RoomKind> kinds) {
    for (size_t i = 0; i < routes.size(); ++i) {
        std::optional<std::string> problem = route_problem(routes[i]);
        for (size_t j = 0; j < i && !problem; ++j) {
            if (routes[j].path == routes[i].path) problem = "two routes take " + routes[i].path;
        }
        if (problem) {
            err << options.program << ": " << *problem << "\n";
            return 2;
        }
    }
    TransportLimits effective = limits;
    if (options.per_address_limit) {
        effective.connections_per_address = *options.per_address_limit;
        effective.handshakes_per_address = *options.per_address_limit;
        effective.rooms_per_address = *options.per_address_limit;
    }
    if (options.max_rooms) effective.max_rooms = *options.max_rooms;
    Server server(options, room, routes, effective, kinds);
    return server.run(out, err);
}

int serve_command(std::span<const std::string_view> args, const ServeGame& game, const TransportLimits& limits,
                  std::ostream& out, std::ostream& err) {
    const ServeFlags flags{game.flags, !game.scenario_names.empty()};
    auto parsed = parse_serve_args(args, flags);
    if (!parsed.ok()) {
        err << game.program << ": " << parsed.message() << "\n";
        return 2;
    }
    const ServeCommand& command = parsed.value();
    if (command.help) {
        ServeHelp help{game.command, game.name, game.flags, game.scenario_names, {}};
        for (const HttpRoute& route : game.routes) help.route_usage.insert(help.route_usage.end(), route.usage.begin(), route.usage.end());
        out << serve_help_text(help);
        return 0;
    }
    ServeOptions options = command.options;
    options.program = game.program;
    // The room's per-address shares follow the transport's budgets (and --per-address-limit).
    options.seats_per_address = options.per_address_limit.value_or(limits.seats_per_address);
    options.watchers_per_address = options.per_address_limit.value_or(limits.watchers_per_address);
    if (!options.pkg_dir_given) options.pkg_dir = default_pkg_dir(game.name);
    if (!options.store_address.empty()) options.store_owner = process_owner(options.advertise_url);
    if (!options.scenario.empty() && game.scenario_problem) {
        if (const auto problem = game.scenario_problem(options.scenario)) {
            err << game.program << ": " << *problem << "\n";
            return 2;
        }
    }
    for (const auto& [dir, given, flag] : {std::tuple{options.web_dir, options.web_dir_given, "--web"},
                                           std::tuple{options.pkg_dir, options.pkg_dir_given, "--pkg"}}) {
        std::error_code ec;
        if (given && !std::filesystem::is_directory(dir, ec)) {
            err << game.program << ": " << flag << " expects a directory (got '" << dir << "', which is not one)\n";
            return 2;
        }
    }
    if (!game.make_room) {
        err << game.program << ": the game gives no room\n";
        return 2;
    }
    auto room = game.make_room(options);
    if (!room.ok()) {
        err << game.program << ": " << room.message() << "\n";
        return room.error().exit_status;
    }
    return serve(options, *room.value(), game.routes, limits, out, err, game.room_kinds);
}

}  // namespace tandem::server
