// SIGINT/SIGTERM through a self-pipe; see interruptnotifier.h.

#include "app/cli/interruptnotifier.h"

#include <QSocketNotifier>

#include <csignal>

#ifndef Q_OS_WIN
#include <fcntl.h>
#include <unistd.h>
#endif

namespace llamafit {

namespace {

#ifndef Q_OS_WIN
int g_signalPipe[2] = {-1, -1};
void onSignal(int) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(g_signalPipe[1], &byte, 1);
}
#endif

} // namespace

InterruptNotifier::InterruptNotifier(std::function<void()> onInterrupt) {
#ifndef Q_OS_WIN
    if (::pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        return;
    }
    m_notifier = std::make_unique<QSocketNotifier>(g_signalPipe[0], QSocketNotifier::Read);
    QObject::connect(m_notifier.get(), &QSocketNotifier::activated, m_notifier.get(),
                     [onInterrupt = std::move(onInterrupt)] {
                         char byte = 0;
                         while (::read(g_signalPipe[0], &byte, 1) == 1) {
                         }
                         onInterrupt();
                     });
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
#else
    (void)onInterrupt;
#endif
}

InterruptNotifier::~InterruptNotifier() {
#ifndef Q_OS_WIN
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    m_notifier.reset();
    for (int& fd : g_signalPipe) {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
        }
    }
#endif
}

} // namespace llamafit
