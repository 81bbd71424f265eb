#include "tests/support/rpcserverrun.h"

#include "tests/support/llamaserverrun.h"

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace llamafit::test {
namespace {

using Clock = std::chrono::steady_clock;

bool accepts(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return false;
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    return ok;
}

} // namespace

Result<std::string> findRpcServer() {
    return findRigTool("LLAMAFIT_RPC_SERVER", "gpu/ggml-rpc-server");
}

Result<std::unique_ptr<RpcServerRun>>
RpcServerRun::start(const std::string& executable,
                    const std::vector<std::pair<std::string, std::string>>& environment,
                    std::chrono::milliseconds readyTimeout) {
    const auto port = pickFreePort();
    if (!port) {
        return makeError("test.no-free-port", "no free TCP port on 127.0.0.1");
    }
    std::vector<std::string> argv{executable, "-H", "127.0.0.1", "-p", std::to_string(*port), "-d", "CPU"};
    std::vector<std::string> envp = environmentWith(environment);
    auto argvPointers = pointers(argv);
    auto envPointers = pointers(envp);

    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        return makeError("test.spawn-failed", std::string("pipe2: ") + std::strerror(errno));
    }
    std::unique_ptr<RpcServerRun> server(new RpcServerRun);
    server->m_port = *port;
    server->m_output = pipeFds[0];
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(pipeFds[1]);
        return makeError("test.spawn-failed", std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
        // Only async-signal-safe calls until execve. Its own group (the destructor signals it all),
        // and SIGKILL when the test process dies, whatever the reason.
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) {
            ::_exit(127);
        }
        const int devNull = ::open("/dev/null", O_RDONLY);
        ::dup2(devNull, 0);
        ::dup2(pipeFds[1], 1);
        ::dup2(pipeFds[1], 2);
        ::execve(argvPointers[0], argvPointers.data(), envPointers.data());
        ::_exit(127);
    }
    ::setpgid(pid, pid); // also here, so a stop right after fork reaches the group
    ::close(pipeFds[1]);
    server->m_pid = pid;
    ::fcntl(server->m_output, F_SETFL, ::fcntl(server->m_output, F_GETFL) | O_NONBLOCK);

    const auto deadline = Clock::now() + readyTimeout;
    std::string output;
    while (!accepts(*port)) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            server->m_pid = -1;
            return makeError("test.rpc-not-ready", "ggml-rpc-server exited before it listened on port " +
                                                       std::to_string(*port) + ":\n" + output +
                                                       server->drainOutput());
        }
        if (Clock::now() >= deadline) {
            return makeError("test.rpc-not-ready", "ggml-rpc-server did not listen on port " +
                                                       std::to_string(*port) + " in time:\n" + output +
                                                       server->drainOutput());
        }
        // Wakes on output (kept for the message) or after a short while to look at the port again.
        pollfd fd{server->m_output, POLLIN, 0};
        if (::poll(&fd, 1, 20) > 0) {
            output += server->drainOutput();
        }
    }
    return server;
}

std::string RpcServerRun::drainOutput() {
    std::string text;
    char buffer[4096];
    ssize_t n = 0;
    while (m_output >= 0 && (n = ::read(m_output, buffer, sizeof buffer)) > 0) {
        text.append(buffer, static_cast<std::size_t>(n));
    }
    return text;
}

void RpcServerRun::stop() {
    if (m_pid <= 0) {
        return;
    }
    ::kill(-m_pid, SIGTERM);
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, m_pid, 0));
    if (pidfd >= 0) {
        pollfd fd{pidfd, POLLIN, 0};
        if (::poll(&fd, 1, 3000) <= 0) {
            ::kill(-m_pid, SIGKILL);
        }
        ::close(pidfd);
    } else {
        ::kill(-m_pid, SIGKILL);
    }
    int status = 0;
    while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::kill(-m_pid, SIGKILL); // anything left in its group
    m_pid = -1;
}

RpcServerRun::~RpcServerRun() {
    stop();
    if (m_output >= 0) {
        ::close(m_output);
    }
}

} // namespace llamafit::test
