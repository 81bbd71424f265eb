#include "core/system/serverprobe.h"

#include "core/system/hostmemory.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>

#include <algorithm>
#include <string_view>
#include <utility>

namespace llamafit {

namespace {

constexpr std::chrono::milliseconds kMinimumProbeInterval{50};

double secondsOf(std::chrono::steady_clock::time_point time) {
    return std::chrono::duration<double>(time.time_since_epoch()).count();
}

std::string_view viewOf(const QByteArray& bytes) {
    return std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

} // namespace

ServerProbe::ServerProbe(const QUrl& baseUrl, std::size_t capacity, QObject* parent)
    : QObject(parent), m_baseUrl(baseUrl), m_network(new QNetworkAccessManager(this)), m_health(capacity),
      m_slots(capacity), m_metrics(capacity), m_slotRates(capacity), m_totalRates(capacity), m_rss(capacity) {
    m_network->setProxy(QNetworkProxy::NoProxy); // never route requests to our own child via a proxy
    connect(&m_timer, &QTimer::timeout, this, &ServerProbe::poll);
}

ServerProbe::~ServerProbe() {
    stop();
}

void ServerProbe::setInterval(std::chrono::milliseconds interval) {
    m_interval = std::max(interval, kMinimumProbeInterval);
    if (m_timer.isActive()) {
        m_timer.start(m_interval);
    }
}

void ServerProbe::start() {
    m_timer.start(m_interval);
    poll();
}

void ServerProbe::stop() {
    m_timer.stop();
    for (QNetworkReply*& reply : m_inFlight) {
        if (reply != nullptr) {
            QNetworkReply* aborted = reply;
            reply = nullptr; // onReply ignores it now
            aborted->abort();
        }
    }
}

bool ServerProbe::anySlotBusy() const {
    if (m_slots.empty()) {
        return false;
    }
    const std::vector<SlotState>& latest = m_slots.latest().value;
    return std::any_of(latest.begin(), latest.end(), [](const SlotState& slot) { return slot.isProcessing; });
}

void ServerProbe::poll() {
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t index = 0; index < m_inFlight.size(); ++index) {
        if (m_inFlight[index] != nullptr && now - m_sentAt[index] > m_requestTimeout) {
            abandon(static_cast<Endpoint>(index),
                    makeError("probe.too-slow", "no complete answer within " +
                                                    std::to_string(m_requestTimeout.count()) + " ms"));
        }
    }
    send(Endpoint::Health, QStringLiteral("/health"));
    if (!m_props) {
        send(Endpoint::Props, QStringLiteral("/props"));
    }
    send(Endpoint::Slots, QStringLiteral("/slots"));
    send(Endpoint::Metrics, QStringLiteral("/metrics"));
    if (m_processId) {
        // Sampled with the requests so a chart can line memory up with the server's activity.
        const Result<std::uint64_t> rss = readProcessRssBytes(*m_processId);
        if (rss.ok()) {
            m_rss.push(std::chrono::steady_clock::now(), *rss);
        }
    }
}

void ServerProbe::send(Endpoint endpoint, const QString& path) {
    QNetworkReply*& slot = m_inFlight[static_cast<std::size_t>(endpoint)];
    if (slot != nullptr) {
        return; // still within its own timeout: do not pile up requests on a slow server
    }
    QUrl url = m_baseUrl;
    url.setPath(path);
    QNetworkRequest request(url);
    request.setTransferTimeout(static_cast<int>(m_requestTimeout.count()));
    if (!m_apiKey.isEmpty()) {
        request.setRawHeader("Authorization", "Bearer " + m_apiKey);
    }
    QNetworkReply* reply = m_network->get(request);
    slot = reply;
    m_sentAt[static_cast<std::size_t>(endpoint)] = std::chrono::steady_clock::now();
    connect(reply, &QNetworkReply::finished, this, [this, endpoint, reply] { onReply(endpoint, reply); });
    // An answer whose Content-Length is over the cap is cut off before its body is read.
    connect(reply, &QNetworkReply::metaDataChanged, this, [this, endpoint, reply] {
        const QVariant length = reply->header(QNetworkRequest::ContentLengthHeader);
        if (length.isValid() && length.toLongLong() > kMaxAnswerBytes &&
            m_inFlight[static_cast<std::size_t>(endpoint)] == reply) {
            abandon(endpoint,
                    makeError("probe.answer-too-large",
                              "the answer announces " + std::to_string(length.toLongLong()) +
                                  " bytes, over the " + std::to_string(kMaxAnswerBytes / (1024 * 1024)) +
                                  " MiB cap; cut off"));
        }
    });
    m_bodies[static_cast<std::size_t>(endpoint)].clear();
    connect(reply, &QNetworkReply::readyRead, this, [this, endpoint, reply] {
        if (m_inFlight[static_cast<std::size_t>(endpoint)] != reply) {
            return;
        }
        QByteArray& body = m_bodies[static_cast<std::size_t>(endpoint)];
        body += reply->read(kMaxAnswerBytes + 1 - body.size());
        if (body.size() > kMaxAnswerBytes) {
            body.clear();
            body.squeeze();
            abandon(endpoint,
                    makeError("probe.answer-too-large", "the answer exceeds " +
                                                            std::to_string(kMaxAnswerBytes / (1024 * 1024)) +
                                                            " MiB; cut off"));
        }
    });
}

void ServerProbe::abandon(Endpoint endpoint, Error error) {
    QNetworkReply*& slot = m_inFlight[static_cast<std::size_t>(endpoint)];
    QNetworkReply* reply = slot;
    slot = nullptr; // onReply ignores it now
    fail(endpoint, std::move(error));
    if (reply != nullptr) {
        reply->abort();
    }
}

void ServerProbe::fail(Endpoint endpoint, Error error) {
    ++m_failedRequests;
    const QString message = QString::fromStdString(error.code + ": " + error.message);
    m_lastFailure[static_cast<std::size_t>(endpoint)] = std::move(error);
    emit requestFailed(endpoint, message);
}

void ServerProbe::onReply(Endpoint endpoint, QNetworkReply* reply) {
    reply->deleteLater();
    QNetworkReply*& slot = m_inFlight[static_cast<std::size_t>(endpoint)];
    if (slot != reply) {
        return; // aborted by stop()
    }
    slot = nullptr;
    // A connection that broke mid-answer still carries the status line it got: name it, rather
    // than parse the part that came (Qt's network-layer errors are the codes below 100).
    if (reply->error() != QNetworkReply::NoError &&
        reply->error() < QNetworkReply::ProxyConnectionRefusedError) {
        fail(endpoint, makeError("probe.network", reply->errorString().toStdString()));
        return;
    }
    const int httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    // /health answers 503 while loading; that is a sample, not a failure.
    const bool answered = httpStatus == 200 || (endpoint == Endpoint::Health && httpStatus == 503);
    if (!answered) {
        fail(endpoint, httpStatus != 0 ? makeError("probe.http-status", "HTTP " + std::to_string(httpStatus))
                                       : makeError("probe.network", reply->errorString().toStdString()));
        return;
    }
    // llama-server answers /metrics as text/plain (Prometheus' text format) and the rest as
    // application/json; anything else (an HTML error page of a proxy, another program on the
    // port) is named rather than half-parsed. No header at all is let through.
    const QString contentType = reply->header(QNetworkRequest::ContentTypeHeader).toString();
    const QString expected =
        endpoint == Endpoint::Metrics ? QStringLiteral("text/plain") : QStringLiteral("application/json");
    if (!contentType.isEmpty() && !contentType.startsWith(expected, Qt::CaseInsensitive)) {
        fail(endpoint, makeError("probe.wrong-content-type", "answered as " + contentType.toStdString() +
                                                                 ", expected " + expected.toStdString()));
        return;
    }
    QByteArray body = std::exchange(m_bodies[static_cast<std::size_t>(endpoint)], {});
    body += reply->readAll();
    accept(endpoint, httpStatus, body);
}

void ServerProbe::accept(Endpoint endpoint, int httpStatus, const QByteArray& body) {
    const auto now = std::chrono::steady_clock::now();
    Error error;
    switch (endpoint) {
    case Endpoint::Health: {
        Result<HealthStatus> health = parseHealth(httpStatus, viewOf(body));
        if (!health.ok()) {
            error = health.error();
            break;
        }
        m_health.push(now, *health);
        break;
    }
    case Endpoint::Props: {
        Result<ServerProps> props = parsePropsJson(viewOf(body));
        if (!props.ok()) {
            error = props.error();
            break;
        }
        m_props = std::move(props).value();
        break;
    }
    case Endpoint::Slots: {
        Result<std::vector<SlotState>> parsed = parseSlotsJson(viewOf(body));
        if (!parsed.ok()) {
            error = parsed.error();
            break;
        }
        if (!m_slots.empty()) {
            const auto& previous = m_slots.latest();
            Result<std::vector<SlotThroughput>> rates =
                slotThroughput(previous.value, secondsOf(previous.time), *parsed, secondsOf(now));
            if (rates.ok()) {
                m_slotRates.push(now, std::move(rates).value());
            }
        }
        m_slots.push(now, std::move(parsed).value());
        break;
    }
    case Endpoint::Metrics: {
        Result<ServerMetrics> metrics = parsePrometheusMetrics(viewOf(body));
        if (!metrics.ok()) {
            error = metrics.error();
            break;
        }
        if (!m_metrics.empty()) {
            const auto& previous = m_metrics.latest();
            Result<TotalThroughput> rates =
                totalThroughput(previous.value, secondsOf(previous.time), *metrics, secondsOf(now));
            if (rates.ok()) {
                m_totalRates.push(now, std::move(rates).value());
            }
        }
        m_metrics.push(now, std::move(metrics).value());
        break;
    }
    }
    if (!error.code.empty()) {
        fail(endpoint, std::move(error));
        return;
    }
    m_lastFailure[static_cast<std::size_t>(endpoint)].reset();
    emit sampled(endpoint);
}

} // namespace llamafit
