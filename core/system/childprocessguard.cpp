// The child's death with its parent; see childprocessguard.h.
#include "core/system/childprocessguard.h"

#include <algorithm>

#if defined(Q_OS_LINUX)
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>
#elif defined(Q_OS_WIN)
#include <windows.h>
#endif

namespace llamafit {

ChildProcessGuard::ChildProcessGuard() {
#ifdef Q_OS_WIN
    // Closing the last handle of this job, which the kernel does when our process ends in any
    // way, kills every process in it.
    HANDLE job = CreateJobObjectW(nullptr, nullptr);
    if (job != nullptr) {
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION info{};
        info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        SetInformationJobObject(job, JobObjectExtendedLimitInformation, &info, sizeof(info));
        m_job = job;
    }
#endif
}

ChildProcessGuard::~ChildProcessGuard() {
#ifdef Q_OS_WIN
    if (m_job != nullptr) {
        CloseHandle(static_cast<HANDLE>(m_job));
    }
#endif
}

void ChildProcessGuard::apply(QProcess& process, std::function<void()> inChild) {
#if defined(Q_OS_LINUX)
    // Runs in the child between fork and exec (async-signal-safe calls only). The getppid
    // check closes the race where we died before prctl ran.
    const pid_t parentPid = ::getpid();
    process.setChildProcessModifier([parentPid, inChild = std::move(inChild)] {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parentPid) {
            ::_exit(127);
        }
        if (inChild) {
            inChild();
        }
    });
#elif defined(Q_OS_UNIX)
    if (inChild) {
        process.setChildProcessModifier(std::move(inChild));
    }
#elif defined(Q_OS_WIN)
    (void)inChild; // no fork on Windows
    // CTRL_BREAK can only be sent to a process group.
    process.setCreateProcessArgumentsModifier(
        [](QProcess::CreateProcessArguments* arguments) { arguments->flags |= CREATE_NEW_PROCESS_GROUP; });
    void* job = m_job;
    QObject::connect(&process, &QProcess::started, &process, [&process, job] {
        HANDLE child = OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, FALSE,
                                   static_cast<DWORD>(process.processId()));
        if (child != nullptr && job != nullptr) {
            AssignProcessToJobObject(static_cast<HANDLE>(job), child);
        }
        if (child != nullptr) {
            CloseHandle(child);
        }
    });
#else
    (void)process;
    (void)inChild;
#endif
}

bool requestStop(QProcess& process) {
#ifdef Q_OS_WIN
    const auto group = static_cast<DWORD>(process.processId());
    if (GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, group)) {
        return true; // the CLI: the child shares its console
    }
    // The GUI has no console, and QProcess gave the child one without a window (CREATE_NO_WINDOW
    // where the parent has none, qprocess_win.cpp). An event goes only to processes of the
    // sender's console, so borrow the child's for the call. The group is the child's own
    // (CREATE_NEW_PROCESS_GROUP above), so LlamaFit itself is not signalled.
    if (GetConsoleWindow() != nullptr || !AttachConsole(group)) {
        return false;
    }
    const bool sent = GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, group) != 0;
    FreeConsole();
    return sent;
#else
    process.terminate();
    return true;
#endif
}

void stopAndReap(QProcess* process, const QObject* owner, std::chrono::milliseconds grace) {
    if (process == nullptr || process->state() == QProcess::NotRunning) {
        return;
    }
    QObject::disconnect(process, nullptr, owner, nullptr);
    if (!requestStop(*process) ||
        !process->waitForFinished(static_cast<int>(std::min<std::int64_t>(grace.count(), 3000)))) {
        process->kill();
        process->waitForFinished(1000);
    }
}

} // namespace llamafit
