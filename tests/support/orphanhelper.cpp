// llamafit-orphan-helper SERVER MODEL: the "app" that dies without cleaning up, for the
// no-orphans tests (tests/integration/serverprocess_test.cpp, tests/windows). Starts
// llama-server through ServerProcess, and once it is Ready prints "pid N" (the server's pid)
// and kills itself -- SIGKILL, or TerminateProcess on Windows -- so no destructor runs: only the
// kernel's parent-death signal (Linux) or the job object's kill-on-close (Windows) can stop the
// server. Test support only.

#include "core/system/serverprocess.h"

#include <QCoreApplication>

#include <csignal>
#include <cstdio>
#ifdef _WIN32
#include <windows.h>
#endif

namespace {

[[noreturn]] void dieWithoutCleanup() {
#ifdef _WIN32
    TerminateProcess(GetCurrentProcess(), 9);
#else
    std::raise(SIGKILL);
#endif
    std::abort(); // not reached
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc != 3) {
        std::fprintf(stderr, "usage: llamafit-orphan-helper SERVER MODEL\n");
        return 2;
    }
    llamafit::ServerProcess server;
    QObject::connect(&server, &llamafit::ServerProcess::stateChanged,
                     [&server](llamafit::ServerProcess::State state) {
                         if (state == llamafit::ServerProcess::State::Ready) {
                             std::printf("pid %lld\n", static_cast<long long>(server.processId()));
                             std::fflush(stdout);
                             dieWithoutCleanup();
                         }
                         if (state == llamafit::ServerProcess::State::Failed) {
                             std::fprintf(stderr, "failed: %s\n", server.failure().message.c_str());
                             QCoreApplication::exit(1);
                         }
                     });
    server.start(QString::fromLocal8Bit(argv[1]),
                 {QStringLiteral("-m"), QString::fromLocal8Bit(argv[2]), QStringLiteral("-c"),
                  QStringLiteral("512"), QStringLiteral("--no-warmup"), QStringLiteral("-t"),
                  QStringLiteral("1")});
    return QCoreApplication::exec();
}
