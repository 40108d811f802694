// A redis-server of the test's own, on a unix socket in a fresh temporary folder, with
// appendonly on (appendfsync everysec, the policy docs/scaling.md states), stopped and removed
// when the test ends. Never a fixed port, never the machine's own Redis. Without redis-server the
// test is skipped with a warning, except under CI=true, where that is a failure.
#pragma once

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tandem/store/redis_store.hpp"

extern char** environ;

namespace store_redis {

namespace fs = std::filesystem;

inline std::string find_redis_server() {
    if (const char* given = std::getenv("TANDEM_REDIS_SERVER"); given && *given) return given;
    for (const char* dir : {"/usr/bin", "/usr/sbin", "/usr/local/bin"}) {
        const fs::path p = fs::path(dir) / "redis-server";
        if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
    return "";
}

class RedisServer {
public:
    RedisServer() {
        binary_ = find_redis_server();
        if (binary_.empty()) {
            const char* ci = std::getenv("CI");
            if (ci && std::string(ci) == "true") FAIL("redis-server is not installed (build-scripts/install-deps installs it)");
            WARN("redis-server is not installed: the Redis store's tests are skipped (under CI=true they fail)");
            return;
        }
        std::string tmpl = (fs::temp_directory_path() / "tandem-redis-XXXXXX").string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        dir_ = tmpl;
        socket_ = (dir_ / "redis.sock").string();
        std::vector<std::string> args = {binary_,        "--port",          "0",          "--unixsocket", socket_,
                                         "--unixsocketperm", "700",         "--dir",      dir_.string(),  "--save",
                                         "",             "--appendonly",    "yes",        "--appendfsync", "everysec",
                                         "--daemonize",  "no",              "--loglevel", "warning",      "--logfile",
                                         (dir_ / "redis.log").string()};
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        REQUIRE(::posix_spawn(&pid_, binary_.c_str(), nullptr, nullptr, argv.data(), environ) == 0);
        tandem::store::RedisAddress address;
        address.unix_path = socket_;
        for (int i = 0; i < 250; ++i) {
            if (tandem::store::RedisStore::open(address).ok()) {
                ready_ = true;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        REQUIRE(ready_);
    }
    ~RedisServer() {
        if (pid_ > 0) {
            ::kill(pid_, SIGTERM);
            int status = 0;
            ::waitpid(pid_, &status, 0);
        }
        if (!dir_.empty()) {
            std::error_code ec;
            fs::remove_all(dir_, ec);
        }
    }
    RedisServer(const RedisServer&) = delete;
    RedisServer& operator=(const RedisServer&) = delete;

    bool ready() const { return ready_; }
    // Runs one command through redis-cli (installed with redis-server); true when it exited 0.
    bool cli(const std::vector<std::string>& command) const {
        std::vector<std::string> args = {"redis-cli", "-s", socket_};
        args.insert(args.end(), command.begin(), command.end());
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        pid_t pid = -1;
        posix_spawn_file_actions_t quiet;
        ::posix_spawn_file_actions_init(&quiet);
        ::posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
        const int spawned = ::posix_spawnp(&pid, "redis-cli", &quiet, nullptr, argv.data(), environ);
        ::posix_spawn_file_actions_destroy(&quiet);
        if (spawned != 0) return false;
        int status = 0;
        return ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    // Stops and continues the server's process: a Redis the scheduler left waiting.
    void stall() const { REQUIRE(::kill(pid_, SIGSTOP) == 0); }
    void resume() const { REQUIRE(::kill(pid_, SIGCONT) == 0); }
    std::string address() const { return "unix:" + socket_; }

private:
    std::string binary_;
    fs::path dir_;
    std::string socket_;
    pid_t pid_ = -1;
    bool ready_ = false;
};

}  // namespace store_redis
