#pragma once
// InterruptNotifier: Ctrl-C (SIGINT) and SIGTERM as a call on the event loop, so a foreground command
// (launch, rpc-server) stops its child through the event loop instead of dying with it half-stopped. A
// self-pipe: the handler only writes a byte; a QSocketNotifier reads it on the loop. The previous
// handlers (the defaults) come back when the notifier goes. On Windows it does nothing: Ctrl-C
// ends the CLI and the children's kill-on-close job object (ChildProcessGuard) ends them with it.
// One per process (the pipe is global). Thread: the thread of the event loop.

#include <functional>
#include <memory>

class QSocketNotifier;

namespace llamafit {

class InterruptNotifier {
  public:
    // `onInterrupt` runs on the event loop after each SIGINT/SIGTERM.
    explicit InterruptNotifier(std::function<void()> onInterrupt);
    ~InterruptNotifier();
    InterruptNotifier(const InterruptNotifier&) = delete;
    InterruptNotifier& operator=(const InterruptNotifier&) = delete;

  private:
    std::unique_ptr<QSocketNotifier> m_notifier;
};

} // namespace llamafit
