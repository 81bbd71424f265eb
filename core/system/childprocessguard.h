#pragma once
// ChildProcessGuard: makes a QProcess child die with LlamaFit, however LlamaFit ends. On Linux
// the child asks the kernel for SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG, set
// between fork and exec and kept across a wrapper script's exec); on Windows the child goes
// into a job object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, closed with the guard (untested
// here, Linux only). Used by ServerProcess (llama-server) and BenchmarkRun (llama-bench).
// Owns: the job object handle (Windows). Thread: the thread that owns the processes.

#include <QProcess>

#include <chrono>
#include <functional>

namespace llamafit {

class ChildProcessGuard {
  public:
    ChildProcessGuard();
    ~ChildProcessGuard();
    ChildProcessGuard(const ChildProcessGuard&) = delete;
    ChildProcessGuard& operator=(const ChildProcessGuard&) = delete;

    // Call before process.start(); the guard must outlive the process. `inChild`, when given,
    // also runs in the child between fork and exec (Unix; async-signal-safe calls only).
    void apply(QProcess& process, std::function<void()> inChild = {});

  private:
#ifdef Q_OS_WIN
    void* m_job = nullptr; // HANDLE of the kill-on-close job object
#endif
};

// Asks `process` to stop as Ctrl-C in its terminal would, so it can print its exit-time lines:
// SIGTERM on Unix; on Windows CTRL_BREAK to its process group (llama-server handles it like
// SIGINT), through LlamaFit's console, or, where LlamaFit has none (the GUI), through the child's
// own, attached for the call. False where the request could not be made (then only kill()
// stops it: a console program ignores the WM_CLOSE that QProcess::terminate posts on Windows).
bool requestStop(QProcess& process);

// For an owner's destructor, the one place a child is waited for: stops `process` if it still runs
// (politely first, so it can print its exit-time lines: requestStop, at most min(grace, 3 s),
// then kill) and reaps it, its signals to `owner` disconnected first. Blocking.
void stopAndReap(QProcess* process, const QObject* owner, std::chrono::milliseconds grace);

} // namespace llamafit
