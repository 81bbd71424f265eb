#pragma once
// HubTaskRunner: the Hub client on a thread of its own, so that no search, header read or
// download ever blocks the window. Tasks run one at a time in the order given (a download queue
// is a queue of tasks); each gets the thread's HubClient, and its result comes back on the
// receiver's thread. cancel() ends the request in flight (hub.cancelled); a download so ended
// keeps its partial file and resumes next time.
// Thread: create, run() and cancel() from the GUI thread.

#include "core/system/hubclient.h"

#include <QObject>
#include <QPointer>
#include <QThread>

#include <atomic>
#include <functional>
#include <memory>

namespace llamafit {

class HubTaskRunner {
  public:
    explicit HubTaskRunner(HubClientOptions options);
    ~HubTaskRunner(); // cancels, then waits for the thread
    HubTaskRunner(const HubTaskRunner&) = delete;
    HubTaskRunner& operator=(const HubTaskRunner&) = delete;

    // `task` runs on the runner's thread; `done` gets its result on `receiver`'s thread, unless
    // the receiver is gone by then.
    template <typename Result>
    void run(std::function<Result(HubClient&)> task, QObject* receiver, std::function<void(Result)> done) {
        QPointer<QObject> guard(receiver);
        QMetaObject::invokeMethod(
            m_context.get(),
            [this, task = std::move(task), guard, done = std::move(done)]() mutable {
                if (m_closing) {
                    return; // the runner is going: queued tasks are dropped
                }
                m_cancel = false; // a cancel ends the request in flight, not the ones after it
                Result result = task(client());
                if (guard) {
                    QMetaObject::invokeMethod(
                        guard.data(),
                        [guard, done = std::move(done), result = std::move(result)]() mutable {
                            if (guard) {
                                done(std::move(result));
                            }
                        },
                        Qt::QueuedConnection);
                }
            },
            Qt::QueuedConnection);
    }

    void cancel() { m_cancel = true; }

  private:
    HubClient& client(); // created on the runner's thread on first use

    HubClientOptions m_options;
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_closing{false};
    QThread m_thread;
    std::unique_ptr<QObject> m_context; // lives on m_thread: the tasks' event target
    std::unique_ptr<HubClient> m_client;
};

} // namespace llamafit
