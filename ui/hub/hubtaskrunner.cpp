// The Hub client on its own thread; see hubtaskrunner.h.

#include "ui/hub/hubtaskrunner.h"

namespace llamafit {

HubTaskRunner::HubTaskRunner(HubClientOptions options)
    : m_options(std::move(options)), m_context(std::make_unique<QObject>()) {
    m_options.cancelled = [this] { return m_cancel.load(); };
    m_context->moveToThread(&m_thread);
    m_thread.setObjectName(QStringLiteral("hub"));
    m_thread.start();
}

HubTaskRunner::~HubTaskRunner() {
    m_closing = true;
    m_cancel = true;
    // The client and its network manager belong to the runner's thread: they go there.
    QMetaObject::invokeMethod(
        m_context.get(), [this] { m_client.reset(); }, Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

HubClient& HubTaskRunner::client() {
    if (!m_client) {
        m_client = std::make_unique<HubClient>(m_options);
    }
    return *m_client;
}

} // namespace llamafit
