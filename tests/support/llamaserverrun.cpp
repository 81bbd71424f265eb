#include "tests/support/llamaserverrun.h"

#include "core/server/allocationlog.h"

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <netinet/in.h>
#include <poll.h>
#include <random>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace llamafit::test {
namespace {

using Clock = std::chrono::steady_clock;

bool isExecutableFile(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool portIsFree(std::uint16_t port, std::uint16_t* boundPort) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return false;
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    socklen_t length = sizeof address;
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
    ::close(fd);
    if (ok) {
        *boundPort = ntohs(address.sin_port);
    }
    return ok;
}

// Owns the child until it is reaped: any early return kills and reaps it.
class Child {
  public:
    Child() = default;
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    ~Child() {
        if (m_pid > 0 && !m_reaped) {
            ::kill(-m_pid, SIGKILL);
            int status = 0;
            ::waitpid(m_pid, &status, 0);
        }
        if (m_pidfd >= 0) {
            ::close(m_pidfd);
        }
        if (m_pipe >= 0) {
            ::close(m_pipe);
        }
    }
    pid_t m_pid = -1;
    int m_pidfd = -1; // -1 where pidfd_open is missing (Linux < 5.3): exit is then seen as pipe EOF
    int m_pipe = -1;  // read end of the child's stdout+stderr
    bool m_reaped = false;
    int m_status = 0;

    // The whole process group: the wrapper execs the server, but any helper it starts goes too.
    void signal(int sig) const { ::kill(-m_pid, sig); }
    bool reapIfExited() {
        if (!m_reaped && ::waitpid(m_pid, &m_status, WNOHANG) == m_pid) {
            m_reaped = true;
        }
        return m_reaped;
    }
    void reapBlocking() {
        while (!m_reaped) {
            const pid_t r = ::waitpid(m_pid, &m_status, 0);
            m_reaped = r == m_pid || (r < 0 && errno != EINTR);
        }
    }
};

// Reads what is in the pipe now; false once the write end is closed everywhere (EOF).
bool readAvailable(int fd, std::string& log) {
    char buffer[16384];
    while (true) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n > 0) {
            log.append(buffer, static_cast<std::size_t>(n));
        } else if (n == 0) {
            return false;
        } else {
            return errno == EAGAIN || errno == EINTR;
        }
    }
}

int millisecondsUntil(Clock::time_point deadline) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::max<decltype(left)>(0, std::min<decltype(left)>(left, 60'000)));
}

} // namespace

std::vector<std::string> environmentWith(const std::vector<std::pair<std::string, std::string>>& extra) {
    std::vector<std::string> result;
    for (char** entry = environ; entry && *entry; ++entry) {
        const std::string_view text(*entry);
        bool replaced = false;
        for (const auto& [key, value] : extra) {
            replaced = replaced || (text.size() > key.size() && text.substr(0, key.size()) == key &&
                                    text[key.size()] == '=');
        }
        if (!replaced) {
            result.emplace_back(text);
        }
    }
    for (const auto& [key, value] : extra) {
        result.push_back(key + "=" + value);
    }
    return result;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> result;
    for (auto& s : strings) {
        result.push_back(s.data());
    }
    result.push_back(nullptr);
    return result;
}

std::optional<std::string> liveServerUnavailableReason() {
    if (const char* fromEnv = std::getenv("LLAMAFIT_LLAMA_SERVER"); fromEnv && *fromEnv) {
        return std::nullopt;
    }
#ifdef LLAMAFIT_LLAMA_SERVER_ROOT
    std::ifstream file(std::string(LLAMAFIT_LLAMA_SERVER_ROOT) + "/UNAVAILABLE");
    if (file) {
        std::string reason;
        std::getline(file, reason);
        return reason.empty() ? std::string("scripts/fetch-llama-server.sh could not fetch the pinned build")
                              : reason;
    }
#endif
    return std::nullopt;
}

Result<std::string> findLlamaServer() {
    if (const auto reason = liveServerUnavailableReason()) {
        return makeError("test.server-unavailable", *reason);
    }
    if (const char* fromEnv = std::getenv("LLAMAFIT_LLAMA_SERVER"); fromEnv && *fromEnv) {
        if (isExecutableFile(fromEnv)) {
            return std::string(fromEnv);
        }
        return makeError("test.server-not-found",
                         std::string("LLAMAFIT_LLAMA_SERVER=") + fromEnv +
                             " is not an executable file; run scripts/fetch-llama-server.sh "
                             "and point it at the llama-server wrapper it writes");
    }
    std::string looked;
#ifdef LLAMAFIT_LLAMA_SERVER_ROOT
    // The fetch folder, or (an older cache value) its root/ subfolder.
    for (const std::string& candidate : {std::string(LLAMAFIT_LLAMA_SERVER_ROOT) + "/llama-server",
                                         std::string(LLAMAFIT_LLAMA_SERVER_ROOT) + "/../llama-server"}) {
        if (isExecutableFile(candidate)) {
            return candidate;
        }
        looked += " " + candidate;
    }
#endif
    return makeError(
        "test.server-not-found",
        "llama-server 0.7.0 not found (looked at:" + looked +
            "). Run scripts/fetch-llama-server.sh to install Debian's build into <repo>/.llama-server, "
            "or set LLAMAFIT_LLAMA_SERVER to the llama-server wrapper it writes.");
}

Result<std::string> findRigTool(const char* variable, const std::string& relative) {
    if (const auto reason = liveServerUnavailableReason()) {
        return makeError("test.server-unavailable", *reason);
    }
    if (const char* fromEnv = std::getenv(variable); fromEnv && *fromEnv) {
        if (isExecutableFile(fromEnv)) {
            return std::string(fromEnv);
        }
        return makeError("test.server-not-found",
                         std::string(variable) + "=" + fromEnv + " is not an executable file");
    }
#ifdef LLAMAFIT_LLAMA_SERVER_ROOT
    const std::string candidate = std::string(LLAMAFIT_LLAMA_SERVER_ROOT) + "/" + relative;
    if (isExecutableFile(candidate)) {
        return candidate;
    }
#else
    const std::string candidate = "<LLAMAFIT_LLAMA_SERVER_ROOT>/" + relative;
#endif
    return makeError("test.server-not-found",
                     candidate +
                         " is missing: run scripts/fetch-llama-server.sh (it writes the GPU rig, gpu/, "
                         "with the Vulkan and RPC backends), or set " +
                         variable);
}

Result<std::string> findGpuLlamaServer() {
    return findRigTool("LLAMAFIT_GPU_LLAMA_SERVER", "gpu/llama-server");
}

std::optional<std::uint16_t> pickFreePort() {
    std::random_device seed;
    std::mt19937 random(seed());
    std::uniform_int_distribution<int> range(18000, 18999);
    std::uint16_t bound = 0;
    for (int attempt = 0; attempt < 32; ++attempt) {
        if (portIsFree(static_cast<std::uint16_t>(range(random)), &bound)) {
            return bound;
        }
    }
    if (portIsFree(0, &bound)) {
        return bound;
    }
    return std::nullopt;
}

Result<ServerRunResult> runLlamaServer(const ServerRunOptions& options) {
    ServerRunResult result;
    const auto port = pickFreePort();
    if (!port) {
        return makeError("test.no-free-port", "no free TCP port on 127.0.0.1");
    }
    result.port = *port;

    std::vector<std::string> argv{options.executable};
    argv.insert(argv.end(), options.args.begin(), options.args.end());
    argv.insert(argv.end(), {"--host", "127.0.0.1", "--port", std::to_string(*port)});
    std::vector<std::string> envp = environmentWith(options.environment);

    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        return makeError("test.io-failed", std::string("pipe2: ") + std::strerror(errno));
    }
    Child child;
    child.m_pipe = pipeFds[0];

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t noSignals, defaults;
    sigemptyset(&noSignals);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attributes, &noSignals);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setpgroup(&attributes, 0); // own process group, so a stop reaches all of it
    posix_spawnattr_setflags(&attributes,
                             POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    auto argvPointers = pointers(argv);
    auto envPointers = pointers(envp);
    const auto start = Clock::now();
    const int spawnError = ::posix_spawn(&child.m_pid, options.executable.c_str(), &actions, &attributes,
                                         argvPointers.data(), envPointers.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(pipeFds[1]);
    if (spawnError != 0) {
        child.m_pid = -1;
        return makeError("test.spawn-failed",
                         "cannot start " + options.executable + ": " + std::strerror(spawnError));
    }
    child.m_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child.m_pid, 0));
    ::fcntl(child.m_pipe, F_SETFL, ::fcntl(child.m_pipe, F_GETFL) | O_NONBLOCK);

    const auto stopWhen =
        options.stopWhen ? options.stopWhen : [](std::string_view log) { return allocationLogFinished(log); };
    bool pipeOpen = true;
    bool stopping = false;
    auto deadline = start + options.timeout;
    const auto beginStop = [&] {
        stopping = true;
        child.signal(SIGTERM);
        deadline = Clock::now() + options.stopGrace;
    };

    while (!child.m_reaped) {
        if (Clock::now() >= deadline) {
            if (!stopping) {
                result.timedOut = true;
                beginStop();
                continue;
            }
            result.killed = true;
            child.signal(SIGKILL);
            child.reapBlocking();
            break;
        }
        pollfd fds[2] = {{pipeOpen ? child.m_pipe : -1, POLLIN, 0}, {child.m_pidfd, POLLIN, 0}};
        const int ready = ::poll(fds, 2, millisecondsUntil(deadline));
        if (ready < 0 && errno != EINTR) {
            return makeError("test.io-failed", std::string("poll: ") + std::strerror(errno));
        }
        if (pipeOpen && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            pipeOpen = readAvailable(child.m_pipe, result.log);
            if (!stopping && stopWhen(result.log)) {
                result.stopConditionMet = true;
                beginStop();
            }
        }
        const bool exitSeen = (fds[1].revents & POLLIN) || (child.m_pidfd < 0 && !pipeOpen);
        if (exitSeen) {
            if (child.m_pidfd < 0) {
                child.reapBlocking(); // the pipe closed: the process is exiting
            }
            if (child.reapIfExited() && !stopping) {
                result.exitedOnItsOwn = true;
            }
        }
    }
    // Whatever the process wrote before it died is still in the pipe.
    if (pipeOpen) {
        readAvailable(child.m_pipe, result.log);
    }
    result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    if (WIFEXITED(child.m_status)) {
        result.exitCode = WEXITSTATUS(child.m_status);
    } else if (WIFSIGNALED(child.m_status)) {
        result.signal = WTERMSIG(child.m_status);
    }
    return result;
}

} // namespace llamafit::test
