// A child's output as a pipe read on LlamaFit's schedule; see childoutputpipe.h.
#include "core/system/childoutputpipe.h"

#include <QtGlobal>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>
#endif

namespace llamafit {

namespace {
#ifdef Q_OS_UNIX
constexpr int kPipeBytes = 1024 * 1024; // Linux's default pipe-max-size
constexpr qsizetype kReadBytes = 64 * 1024;
#endif
} // namespace

bool ChildOutputPipe::open() {
    close();
#ifdef Q_OS_UNIX
    int ends[2] = {-1, -1};
    if (::pipe(ends) != 0) {
        return false;
    }
    // Close-on-exec for both: the child's fds 1 and 2 are dup2 copies, which are not.
    for (const int end : ends) {
        ::fcntl(end, F_SETFD, FD_CLOEXEC);
    }
    ::fcntl(ends[0], F_SETFL, ::fcntl(ends[0], F_GETFL) | O_NONBLOCK);
#ifdef F_SETPIPE_SZ
    ::fcntl(ends[0], F_SETPIPE_SZ, kPipeBytes); // best effort: the default 64 KiB also works
#endif
    m_readEnd = ends[0];
    m_writeEnd = ends[1];
    return true;
#else
    return false;
#endif
}

void ChildOutputPipe::redirectInChild() const noexcept {
#ifdef Q_OS_UNIX
    if (m_writeEnd >= 0) {
        ::dup2(m_writeEnd, STDOUT_FILENO);
        ::dup2(m_writeEnd, STDERR_FILENO);
    }
#endif
}

void ChildOutputPipe::closeWriteEnd() {
#ifdef Q_OS_UNIX
    if (m_writeEnd >= 0) {
        ::close(m_writeEnd);
        m_writeEnd = -1;
    }
#endif
}

QByteArray ChildOutputPipe::readAvailable() {
    QByteArray data;
#ifdef Q_OS_UNIX
    if (m_readEnd < 0) {
        return data;
    }
    for (;;) {
        const qsizetype used = data.size();
        data.resize(used + kReadBytes);
        const ssize_t got = ::read(m_readEnd, data.data() + used, static_cast<size_t>(kReadBytes));
        if (got > 0) {
            data.resize(used + got);
            continue;
        }
        data.resize(used);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        break; // 0: the child's output ended; EAGAIN: nothing more for now
    }
#endif
    return data;
}

void ChildOutputPipe::close() {
#ifdef Q_OS_UNIX
    closeWriteEnd();
    if (m_readEnd >= 0) {
        ::close(m_readEnd);
        m_readEnd = -1;
    }
#endif
}

} // namespace llamafit
