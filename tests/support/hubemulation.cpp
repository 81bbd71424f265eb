#include "tests/support/hubemulation.h"

#include "tests/support/hubemulationsite.h"
#include "tests/support/llamaserverrun.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <poll.h>
#include <sstream>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace llamafit::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kPidFile = "nginx.pid";
constexpr int kPortAttempts = 8;
constexpr std::chrono::milliseconds kStopGrace{3000};
constexpr std::chrono::milliseconds kBarrierTimeout{5000};

std::string readWholeFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

int connectTo(const char* address, std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    sockaddr_in peer{};
    peer.sin_family = AF_INET;
    peer.sin_port = htons(port);
    ::inet_pton(AF_INET, address, &peer.sin_addr);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&peer), sizeof peer) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool accepts(const char* address, std::uint16_t port) {
    const int fd = connectTo(address, port);
    if (fd >= 0) {
        ::close(fd);
    }
    return fd >= 0;
}

bool isServableToken(const std::string& token) {
    return !token.empty() && token.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                     "0123456789_-") == std::string::npos;
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

// The value of a log field as nginx escaped it (\xHH), with its '-' for "empty" undone.
std::string unescapeLogField(const std::string& field) {
    if (field == "-") {
        return {};
    }
    std::string out;
    for (std::size_t i = 0; i < field.size(); ++i) {
        if (field[i] == '\\' && i + 3 < field.size() && field[i + 1] == 'x' && hexValue(field[i + 2]) >= 0 &&
            hexValue(field[i + 3]) >= 0) {
            out += static_cast<char>(hexValue(field[i + 2]) * 16 + hexValue(field[i + 3]));
            i += 3;
        } else {
            out += field[i];
        }
    }
    return out;
}

// The path of a request target, percent-decoded, without its query.
std::string decodedPath(const std::string& uri) {
    const std::string path = uri.substr(0, uri.find('?'));
    std::string out;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (path[i] == '%' && i + 2 < path.size() && hexValue(path[i + 1]) >= 0 &&
            hexValue(path[i + 2]) >= 0) {
            out += static_cast<char>(hexValue(path[i + 1]) * 16 + hexValue(path[i + 2]));
            i += 2;
        } else {
            out += path[i];
        }
    }
    return out;
}

HubAccessLogEntry parseLogLine(const std::string& line) {
    std::vector<std::string> fields;
    std::istringstream split(line);
    for (std::string field; std::getline(split, field, '\t');) {
        fields.push_back(unescapeLogField(field));
    }
    fields.resize(9);
    HubAccessLogEntry entry;
    entry.method = fields[0];
    entry.uri = fields[1];
    entry.path = decodedPath(fields[1]);
    entry.status = std::atoi(fields[2].c_str());
    entry.bodyBytes = std::strtoull(fields[3].c_str(), nullptr, 10);
    entry.range = fields[4];
    entry.authorization = fields[5];
    entry.host = fields[6];
    entry.serverAddress = fields[7];
    entry.userAgent = fields[8];
    return entry;
}

// One nginx started on one port, not yet known to listen.
struct Launch {
    int pid = -1;
    std::string error; // why it is not running, when pid is -1
};

Launch launchNginx(const std::string& nginx, const std::string& work) {
    const std::string out = work + "/nginx.out";
    const int outFd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (outFd < 0) {
        return {-1, "cannot create " + out + ": " + std::strerror(errno)};
    }
    // -e: the error log from the first line on (Debian's build starts on stderr). Every other
    // path comes from nginx.conf, relative to -p.
    std::vector<std::string> argv{
        nginx, "-p", work + "/", "-c", work + "/nginx.conf", "-e", work + "/error.log"};
    std::vector<std::string> envp = environmentWith({});
    auto argvPointers = pointers(argv);
    auto envPointers = pointers(envp);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(outFd);
        return {-1, std::string("fork: ") + std::strerror(errno)};
    }
    if (pid == 0) {
        // Only async-signal-safe calls until execve. Its own group (stop() signals it all), and
        // SIGKILL when the test process dies, whatever the reason.
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) {
            ::_exit(127);
        }
        const int devNull = ::open("/dev/null", O_RDONLY);
        ::dup2(devNull, 0);
        ::dup2(outFd, 1);
        ::dup2(outFd, 2);
        ::execve(argvPointers[0], argvPointers.data(), envPointers.data());
        ::_exit(127);
    }
    ::setpgid(pid, pid); // also here, so a stop right after fork reaches the group
    ::close(outFd);
    return {pid, {}};
}

// Stops nginx's process group: SIGTERM (nginx's fast shutdown), SIGKILL after a grace period, reaped.
void stopProcess(int pid) {
    if (pid <= 0) {
        return;
    }
    ::kill(-pid, SIGTERM);
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd >= 0) {
        pollfd fd{pidfd, POLLIN, 0};
        if (::poll(&fd, 1, static_cast<int>(kStopGrace.count())) <= 0) {
            ::kill(-pid, SIGKILL);
        }
        ::close(pidfd);
    } else {
        ::kill(-pid, SIGKILL);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::kill(-pid, SIGKILL); // anything left in its group
}

// PortTaken and Exited: nginx has exited and was reaped; TimedOut: it still runs.
enum class Readiness { Listening, PortTaken, Exited, TimedOut };

// Waits until nginx has written its pid file (it does so after binding every listen address)
// and both origins accept a connection; or until it exits or the deadline passes. Event-driven:
// inotify on the work folder and a pidfd (plus a look once a second, should an event be
// missed), no sleeping. `watch` was set up before the fork.
Readiness awaitListening(int pid, int watch, const std::string& work, std::uint16_t port,
                         std::chrono::milliseconds timeout, std::string& why) {
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    const auto deadline = Clock::now() + timeout;
    const std::string pidFile = work + "/" + kPidFile;
    Readiness result = Readiness::TimedOut;
    for (;;) {
        struct stat info {};
        if (::stat(pidFile.c_str(), &info) == 0 && info.st_size > 0 && accepts("127.0.0.1", port) &&
            accepts("127.0.0.2", port)) {
            result = Readiness::Listening;
            break;
        }
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            const std::string log = readWholeFile(work + "/error.log") + readWholeFile(work + "/nginx.out");
            why = "nginx exited before it listened on port " + std::to_string(port) + ":\n" + log;
            result = log.find("Address already in use") != std::string::npos ? Readiness::PortTaken
                                                                             : Readiness::Exited;
            break;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            why = "nginx did not listen on 127.0.0.1:" + std::to_string(port) +
                  " and 127.0.0.2:" + std::to_string(port) + " within " + std::to_string(timeout.count()) +
                  " ms:\n" + readWholeFile(work + "/error.log") + readWholeFile(work + "/nginx.out");
            break;
        }
        // Wakes when a file in the work folder is closed after writing (the pid file) or nginx exits.
        pollfd fds[2] = {{watch, POLLIN, 0}, {pidfd, POLLIN, 0}};
        if (::poll(fds, pidfd >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(left.count(), 1000))) > 0 &&
            (fds[0].revents & POLLIN) != 0) {
            char events[4096];
            while (::read(watch, events, sizeof events) > 0) {
            }
        }
    }
    if (pidfd >= 0) {
        ::close(pidfd);
    }
    return result;
}

} // namespace

Result<std::string> findNginx() {
    const auto isExecutable = [](const std::string& path) {
        struct stat info {};
        return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
    };
    if (const char* fromEnv = std::getenv("LLAMAFIT_NGINX"); fromEnv != nullptr && *fromEnv != '\0') {
        if (isExecutable(fromEnv)) {
            return std::string(fromEnv);
        }
        return makeError("test.nginx-not-found",
                         std::string("LLAMAFIT_NGINX=") + fromEnv + " is not an executable file");
    }
#ifdef LLAMAFIT_NGINX
    const std::string configured = LLAMAFIT_NGINX;
#else
    const std::string configured = "<LLAMAFIT_NGINX>";
#endif
    if (isExecutable(configured)) {
        return configured;
    }
    return makeError("test.nginx-not-found",
                     configured + " is missing: run scripts/fetch-nginx.sh (Debian 12's nginx, "
                                  "unpacked without installing), or set LLAMAFIT_NGINX");
}

Result<HubEmulation> HubEmulation::start(std::vector<HubFixtureRepo> repos, const std::string& workDirectory,
                                         HubEmulationOptions options) {
    auto nginx = findNginx();
    if (!nginx) {
        return nginx.error();
    }
    if (!isServableToken(options.token)) {
        return makeError("test.bad-fixture", "token '" + options.token +
                                                 "' has characters other than letters, "
                                                 "digits, '_' and '-'");
    }
    std::error_code ec;
    const std::string work = fs::absolute(workDirectory, ec).lexically_normal().string();
    if (ec || !fs::is_directory(work, ec)) {
        return makeError("test.bad-fixture", "work folder " + workDirectory + " does not exist");
    }
    for (const char c : work) {
        if (static_cast<unsigned char>(c) < 0x20) {
            return makeError("test.bad-fixture", "work folder " + workDirectory + " has a control character");
        }
    }
    auto site = describeRepos(repos);
    if (!site) {
        return site.error();
    }
    // What an earlier emulation left in the folder would be served or logged again.
    for (const char* stale : {"www", "cdn", "blobs", "access.log", "error.log", "nginx.out", kPidFile}) {
        fs::remove_all(fs::path(work) / stale, ec);
    }
    HubEmulation emulation;
    emulation.m_workDirectory = work;
    emulation.m_searchEntries = searchEntriesFor(options.searchResultIds, *site);
    for (const HubSiteRepo& repo : *site) {
        for (const HubSiteFile& file : repo.files) {
            emulation.m_files.push_back({repo.repoId, file.repoPath, file.sha256, file.gitOid});
        }
    }
    if (auto written = writeSite(work, *site, emulation.m_searchEntries, options.searchPageSize); !written) {
        return written.error();
    }
    const std::size_t pages = searchPageCount(emulation.m_searchEntries.size(), options.searchPageSize);

    // The pid file's appearance is the readiness event: watch before nginx can write it.
    const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (watch < 0 || ::inotify_add_watch(watch, work.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
        if (watch >= 0) {
            ::close(watch);
        }
        return makeError("test.io-failed", "inotify on " + work + ": " + std::strerror(errno));
    }
    std::string why = "no free port found";
    for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
        // pickFreePort checks 127.0.0.1 only, and another process may take the port before nginx
        // binds it: a bind failure ("Address already in use") means another try on another port.
        const auto port = pickFreePort();
        if (!port) {
            ::close(watch);
            return makeError("test.no-free-port", "no free TCP port on 127.0.0.1");
        }
        std::ofstream conf(work + "/nginx.conf", std::ios::trunc);
        conf << nginxConfig(*site, options.token, pages, *port);
        conf.close();
        fs::remove(work + "/" + kPidFile, ec);
        fs::remove(work + "/error.log", ec);
        if (!conf) {
            ::close(watch);
            return makeError("test.io-failed", "cannot write " + work + "/nginx.conf");
        }
        const Launch launch = launchNginx(*nginx, work);
        if (launch.pid < 0) {
            ::close(watch);
            return makeError("test.spawn-failed", "cannot start " + *nginx + ": " + launch.error);
        }
        const Readiness ready = awaitListening(launch.pid, watch, work, *port, options.startTimeout, why);
        if (ready == Readiness::Listening) {
            ::close(watch);
            emulation.m_pid = launch.pid;
            emulation.m_port = *port;
            emulation.m_options = std::move(options);
            return emulation;
        }
        if (ready == Readiness::TimedOut) {
            stopProcess(launch.pid);
        }
        if (ready != Readiness::PortTaken) {
            break;
        }
    }
    ::close(watch);
    return makeError("test.nginx-not-ready", why);
}

HubEmulation::HubEmulation(HubEmulation&& other) noexcept
    : m_pid(std::exchange(other.m_pid, -1)), m_port(std::exchange(other.m_port, 0)),
      m_workDirectory(std::move(other.m_workDirectory)), m_options(std::move(other.m_options)),
      m_searchEntries(std::move(other.m_searchEntries)), m_files(std::move(other.m_files)) {}

HubEmulation& HubEmulation::operator=(HubEmulation&& other) noexcept {
    if (this != &other) {
        stop();
        m_pid = std::exchange(other.m_pid, -1);
        m_port = std::exchange(other.m_port, 0);
        m_workDirectory = std::move(other.m_workDirectory);
        m_options = std::move(other.m_options);
        m_searchEntries = std::move(other.m_searchEntries);
        m_files = std::move(other.m_files);
    }
    return *this;
}

HubEmulation::~HubEmulation() {
    stop();
}

void HubEmulation::stop() {
    stopProcess(m_pid);
    m_pid = -1;
}

std::string HubEmulation::endpoint() const {
    return "http://127.0.0.1:" + std::to_string(m_port);
}

std::string HubEmulation::cdnOrigin() const {
    return "http://127.0.0.2:" + std::to_string(m_port);
}

std::vector<HubAccessLogEntry> HubEmulation::accessLog() const {
    if (m_pid > 0) {
        // The barrier (see the header): HTTP/1.0 without keep-alive, so nginx closes the
        // connection once the request is finished, and every request finished before it has
        // its line in the file by then.
        const int fd = connectTo("127.0.0.1", m_port);
        if (fd >= 0) {
            const std::string request = "GET /__hubemulation/barrier HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
            if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
                static_cast<ssize_t>(request.size())) {
                char buffer[512];
                pollfd readable{fd, POLLIN, 0};
                while (::poll(&readable, 1, static_cast<int>(kBarrierTimeout.count())) > 0 &&
                       ::read(fd, buffer, sizeof buffer) > 0) {
                }
            }
            ::close(fd);
        }
    }
    std::vector<HubAccessLogEntry> entries;
    std::ifstream log(m_workDirectory + "/access.log", std::ios::binary);
    for (std::string line; std::getline(log, line);) {
        if (!line.empty()) {
            entries.push_back(parseLogLine(line));
        }
    }
    return entries;
}

std::uint64_t HubEmulation::bytesServedFrom(const std::string& pathPrefix) const {
    std::uint64_t bytes = 0;
    for (const HubAccessLogEntry& entry : accessLog()) {
        if (entry.path.compare(0, pathPrefix.size(), pathPrefix) == 0) {
            bytes += entry.bodyBytes;
        }
    }
    return bytes;
}

std::string HubEmulation::sha256Of(const std::string& repoId, const std::string& repoPath) const {
    for (const FileFacts& file : m_files) {
        if (file.repoId == repoId && file.repoPath == repoPath) {
            return file.sha256;
        }
    }
    return {};
}

std::string HubEmulation::gitOidOf(const std::string& repoId, const std::string& repoPath) const {
    for (const FileFacts& file : m_files) {
        if (file.repoId == repoId && file.repoPath == repoPath) {
            return file.gitOid;
        }
    }
    return {};
}

} // namespace llamafit::test
