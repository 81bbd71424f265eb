#pragma once
// ChildOutputPipe: a child's stdout and stderr as one pipe that LlamaFit reads when it chooses
// (a timer), in place of QProcess's channel, which wakes the event loop at every write of the
// child. llama-server at -lv 4 writes thousands of short lines a second under load (its prompt
// cache lists every cached prompt on each request); one wakeup per write was most of the
// monitor's CPU in scripts/soak.sh. Unix only: the pipe is put on fds 1 and 2 between fork and
// exec. Elsewhere open() returns false and the caller keeps QProcess's merged channel.
// Used by ServerProcess. Owns: the pipe's ends. Thread: the thread that owns the process.

#include <QByteArray>

namespace llamafit {

class ChildOutputPipe {
  public:
    ChildOutputPipe() = default;
    ~ChildOutputPipe() { close(); }
    ChildOutputPipe(const ChildOutputPipe&) = delete;
    ChildOutputPipe& operator=(const ChildOutputPipe&) = delete;

    // Makes a new pipe (closing the previous one); on Linux with room for 1 MiB, so a busy
    // child rarely waits between two reads. false where this platform or the system cannot.
    bool open();
    bool isOpen() const { return m_readEnd >= 0; }
    // In the child, between fork and exec: the pipe becomes stdout and stderr. Async-signal-safe.
    void redirectInChild() const noexcept;
    // In the parent once the child has started (or failed to): the parent's copy of the write
    // end goes, so the pipe reads as ended when the child's output is.
    void closeWriteEnd();
    // What the child wrote since the last call, without blocking; empty when nothing is there.
    QByteArray readAvailable();
    void close();

  private:
    int m_readEnd = -1;
    int m_writeEnd = -1;
};

} // namespace llamafit
