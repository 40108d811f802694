// What an HTTP request is answered: /metrics, /healthz, /ws without an upgrade, /rooms (rooms.cpp), a game's
// routes (HttpRoute: answered whenever and from whichever thread the route replies), and the
// static files (revalidated with ETags, gzipped when the client takes it). The WebSocket
// origin rule lives here too: it is a property of a request.
#include <boost/asio/dispatch.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>

#include "server/transport.hpp"

namespace tandem::server::detail {

http::message_generator Server::respond(const http::request<http::string_body>& request, const AddressKey& address) {
    const bool head = request.method() == http::verb::head;
    const unsigned version = request.version();
    auto text = [&](http::status status, std::string body, std::string_view type = "text/plain; charset=utf-8") {
        http::response<http::string_body> response{status, version};
        common_headers(response);
        response.set(http::field::content_type, type);
        response.set(http::field::cache_control, "no-store");
        response.keep_alive(request.keep_alive());
        const size_t length = body.size();
        response.body() = head ? std::string() : std::move(body);
        response.content_length(length);  // HEAD: the length the GET would have had
        metrics_.http_response(static_cast<unsigned>(status));
        return response;
    };

    {
        const std::string_view target(request.target().data(), request.target().size());
        if (target.substr(0, target.find('?')) == "/rooms") return rooms_answer(request, address);
    }
    if (request.method() != http::verb::get && !head) {
        auto response = text(http::status::method_not_allowed, "only GET and HEAD are served\n");
        response.set(http::field::allow, "GET, HEAD");
        return response;
    }
    const std::string_view target(request.target().data(), request.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    if (path == "/metrics") {
        Mark mark(*this, Activity::metrics);
        figures_.rooms_open = static_cast<uint32_t>(rooms_.size());
        std::vector<RoomSeries> series;
        for (const auto& [id, room] : rooms_) series.push_back({id, room->reported.players, room->reported.watchers, room->reported.tick});
        std::string body = metrics_.render(figures_, default_room_->reported, series);
        for (const HttpRoute& route : routes_) {
            if (route.metrics) body += route.metrics();
        }
        return text(http::status::ok, std::move(body), "text/plain; version=0.0.4; charset=utf-8");
    }
    if (path == "/healthz") {
        const Health health = judge_health(health_policy_, TickHealthInput{
                                                               .now_ns = now_ns(),
                                                               .started = ticking_started_,
                                                               .draining = draining_,
                                                               .next_boundary_ns = default_room_->next_boundary_ns,
                                                               .last_fell_behind_ns = last_fell_behind_ns_,
                                                           });
        return text(static_cast<http::status>(http_status(health)), std::string(error_name(health)) + "\n");
    }
    if (path == "/ws" || path.starts_with("/ws/")) {
        auto response = text(http::status::upgrade_required, std::string(path) + " is a WebSocket endpoint\n");
        response.set(http::field::upgrade, "websocket");
        return response;
    }
    const auto parsed = parse_request_path(target);
    if (!parsed) return text(http::status::bad_request, std::string(parsed.message()) + "\n");
    const std::optional<FoundFile> found = find_file(roots_, parsed.value());
    if (!found) return text(http::status::not_found, "not found\n");

    // Files: always revalidated (no-cache), answered 304 while unchanged. The page, the JS
    // glue and the .wasm must come from one build, and their URLs carry no content hash, so
    // a cached copy must never be used without asking; the ETag makes asking cheap. A client
    // that accepts gzip gets the stored gzip body once it exists (GzipFiles), with its own tag.
    const auto accept = request.find(http::field::accept_encoding);
    const std::shared_ptr<const std::string> gzip =
        accept != request.end() && accepts_gzip(std::string_view(accept->value().data(), accept->value().size()))
            ? gzip_files_.find(*found)
            : nullptr;
    const std::string etag = gzip ? gzip_etag(found->etag) : found->etag;
    auto file_headers = [&](auto& response) {
        common_headers(response);
        response.set(http::field::etag, etag);
        response.set(http::field::cache_control, "no-cache");
        response.set(http::field::vary, "Accept-Encoding");
        response.keep_alive(request.keep_alive());
    };
    if (const auto match = request.find(http::field::if_none_match);
        match != request.end() && if_none_match_hits(std::string_view(match->value().data(), match->value().size()), etag)) {
        http::response<http::empty_body> response{http::status::not_modified, version};
        file_headers(response);
        metrics_.http_response(304);
        return response;
    }
    if (gzip) {
        http::response<http::string_body> response{http::status::ok, version};
        file_headers(response);
        response.set(http::field::content_type, found->mime);
        response.set(http::field::content_encoding, "gzip");
        if (!head) response.body() = *gzip;
        response.content_length(gzip->size());  // HEAD: the length the GET would have had
        metrics_.http_response(200);
        return response;
    }
    if (head) {
        http::response<http::empty_body> response{http::status::ok, version};
        file_headers(response);
        response.set(http::field::content_type, found->mime);
        response.content_length(found->size);
        metrics_.http_response(200);
        return response;
    }
    error_code ec;
    http::file_body::value_type body;
    body.open(found->path.c_str(), beast::file_mode::scan, ec);
    if (ec) return text(http::status::not_found, "not found\n");
    http::response<http::file_body> response{std::piecewise_construct, std::make_tuple(std::move(body)),
                                             std::make_tuple(http::status::ok, version)};
    file_headers(response);
    response.set(http::field::content_type, found->mime);
    response.prepare_payload();
    metrics_.http_response(200);
    return response;
}

const HttpRoute* Server::route_for(std::string_view path) const {
    for (const HttpRoute& route : routes_) {
        if (route.path == path) return &route;
    }
    return nullptr;
}

void Server::answer_route(const HttpRoute& route, const http::request<http::string_body>& request, std::string peer,
                          std::shared_ptr<const std::atomic<bool>> gone, std::function<void(http::message_generator)> write) {
    const bool head = request.method() == http::verb::head;
    const unsigned version = request.version();
    const bool keep_alive = request.keep_alive();
    // Built on this thread, whichever thread the route answers from.
    auto respond = [this, head, version, keep_alive, write = std::move(write)](HttpResponse answer) {
        http::response<http::string_body> response{static_cast<http::status>(answer.status), version};
        common_headers(response);
        response.set(http::field::content_type, answer.content_type);
        response.set(http::field::cache_control, "no-store");
        for (const auto& [name, value] : answer.headers) response.set(name, value);
        response.keep_alive(keep_alive);
        const size_t length = answer.body.size();
        response.body() = head ? std::string() : std::move(answer.body);
        response.content_length(length);  // HEAD: the length the GET would have had
        metrics_.http_response(answer.status);
        write(http::message_generator(std::move(response)));
    };
    auto answered = std::make_shared<std::atomic<bool>>(false);
    HttpReply reply = [gate = reply_gate_, answered, respond = std::move(respond)](HttpResponse answer) {
        if (answered->exchange(true)) return;  // the first answer is the one sent
        const std::lock_guard lock(gate->mutex);
        if (gate->io == nullptr) return;      // the server has stopped
        asio::dispatch(*gate->io, [respond, answer = std::move(answer)]() mutable { respond(std::move(answer)); });
    };
    HttpRequest asked;
    asked.target = std::string(request.target().data(), request.target().size());
    asked.head = head;
    asked.peer = std::move(peer);
    asked.gone = std::move(gone);
    route.handle(asked, std::move(reply));
}

bool Server::origin_allowed(std::string_view origin_header) const {
    const std::optional<std::string> origin = normalize_origin(origin_header);
    if (!origin) return false;  // "null" (sandboxed frames, file: pages) and garbage
    return std::find(origins_.begin(), origins_.end(), *origin) != origins_.end();
}

}  // namespace tandem::server::detail
