#pragma once
// ServerProbe: the live monitor of a running llama-server. Polls /health, /props, /slots and
// /metrics at a user-set rate (2 Hz by default), each request with its own timeout, parses
// the answers with the pure parsers of core/server (slotsjson.h, prometheusmetrics.h) and
// keeps timestamped samples in fixed-capacity ring buffers for the charts, together with
// the throughput derived from successive samples (throughput.h) and the server's resident
// set size. Used by `llamafit-cli launch` (status line) and, later, the GUI's monitor.
// Owns: its QNetworkAccessManager, the poll timer and the ring buffers.
// Thread: create and use from one thread with an event loop (the GUI thread).
// Units: tokens/s, bytes, std::chrono::milliseconds; sample times are steady_clock.
//
// Throughput is built from deltas of /slots n_decoded (per slot) and of
// llamacpp:n_decode_total, never from the llamacpp:*_tokens_seconds gauges: in 0.7.0 those
// average only the requests finished since the previous /metrics call and reset on each
// call, so they read 0 while a request runs (see core/server/prometheusmetrics.h). For the
// same reason this probe should be the only /metrics scraper of its server.
// /props is the configuration in effect: fetched until it answers once, then left alone.

#include "core/common/result.h"
#include "core/common/ringbuffer.h"
#include "core/server/prometheusmetrics.h"
#include "core/server/slotsjson.h"
#include "core/server/throughput.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>
#include <QUrl>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

class QNetworkAccessManager;
class QNetworkReply;

namespace llamafit {

class ServerProbe : public QObject {
    Q_OBJECT
  public:
    enum class Endpoint { Health, Props, Slots, Metrics };
    Q_ENUM(Endpoint)

    static constexpr std::chrono::milliseconds kDefaultInterval{500}; // 2 Hz
    static constexpr std::chrono::milliseconds kDefaultRequestTimeout{2000};
    static constexpr std::size_t kDefaultCapacity = 1200; // 10 minutes at 2 Hz
    // Larger answers are cut off (probe.answer-too-large): llama-server's /slots for 256 slots is
    // well under 1 MiB; a server that sends more is broken or not llama-server.
    static constexpr qint64 kMaxAnswerBytes = 16 * 1024 * 1024;

    // baseUrl: http://HOST:PORT (ServerProcess::baseUrl()). Nothing is sent until start().
    explicit ServerProbe(const QUrl& baseUrl, std::size_t capacity = kDefaultCapacity,
                         QObject* parent = nullptr);
    ~ServerProbe() override;

    // Takes effect at once; intervals below 50 ms are raised to 50 ms.
    void setInterval(std::chrono::milliseconds interval);
    std::chrono::milliseconds interval() const { return m_interval; }
    // The whole answer must arrive within this time (probe.too-slow), not just each byte: a
    // server that drips one byte a second would otherwise hold the endpoint forever.
    void setRequestTimeout(std::chrono::milliseconds timeout) { m_requestTimeout = timeout; }
    // The server's pid, for its RSS; nullopt: no RSS samples.
    void setProcessId(std::optional<std::int64_t> pid) { m_processId = pid; }
    // Sent as "Authorization: Bearer KEY" on every request: a server started with --api-key or
    // --api-key-file answers 401 on /metrics, /slots and /props without it (core/server/exposure.h).
    void setApiKey(const std::string& key) { m_apiKey = QByteArray::fromStdString(key); }
    // The first round of requests goes out at once, then one per interval. An endpoint whose
    // previous request is still pending is skipped in that round.
    void start();
    void stop(); // aborts the requests in flight
    bool isRunning() const { return m_timer.isActive(); }

    const RingBuffer<HealthStatus>& health() const { return m_health; }
    const std::optional<ServerProps>& props() const { return m_props; }
    const RingBuffer<std::vector<SlotState>>& slotStates() const { return m_slots; }
    const RingBuffer<ServerMetrics>& metrics() const { return m_metrics; }
    // One entry per pair of successive /slots (/metrics) samples, at the later one's time.
    const RingBuffer<std::vector<SlotThroughput>>& slotThroughputs() const { return m_slotRates; }
    const RingBuffer<TotalThroughput>& totalThroughputs() const { return m_totalRates; }
    const RingBuffer<std::uint64_t>& processRss() const { return m_rss; }
    // A slot is processing in the latest /slots sample.
    bool anySlotBusy() const;
    std::uint64_t failedRequests() const { return m_failedRequests; }
    // Why the endpoint's latest request failed (code and message), cleared by its next sample:
    // probe.too-slow, probe.answer-too-large, probe.wrong-content-type, probe.http-status,
    // probe.network, or the parser's own code (slots.bad-json, ...).
    const std::optional<Error>& lastFailure(Endpoint endpoint) const {
        return m_lastFailure[static_cast<std::size_t>(endpoint)];
    }

  signals:
    // After a sample of `endpoint` went into its ring buffer.
    void sampled(llamafit::ServerProbe::Endpoint endpoint);
    // A request timed out, was refused, or its answer did not parse.
    void requestFailed(llamafit::ServerProbe::Endpoint endpoint, const QString& message);

  private:
    void poll();
    void send(Endpoint endpoint, const QString& path);
    void onReply(Endpoint endpoint, QNetworkReply* reply);
    void accept(Endpoint endpoint, int httpStatus, const QByteArray& body);
    void fail(Endpoint endpoint, Error error);
    // Drops a request that broke a limit; its late `finished` is ignored.
    void abandon(Endpoint endpoint, Error error);

    QUrl m_baseUrl;
    QNetworkAccessManager* m_network = nullptr;
    QTimer m_timer;
    std::chrono::milliseconds m_interval = kDefaultInterval;
    std::chrono::milliseconds m_requestTimeout = kDefaultRequestTimeout;
    std::optional<std::int64_t> m_processId;
    QByteArray m_apiKey; // empty: no Authorization header
    std::array<QNetworkReply*, 4> m_inFlight{};
    // Each answer's body as it arrives, read out of the reply at every readyRead so that Qt's
    // own buffer stays small and the cap bounds what an endless answer can cost.
    std::array<QByteArray, 4> m_bodies{};
    std::array<std::chrono::steady_clock::time_point, 4> m_sentAt{};
    std::array<std::optional<Error>, 4> m_lastFailure{};
    RingBuffer<HealthStatus> m_health;
    std::optional<ServerProps> m_props;
    RingBuffer<std::vector<SlotState>> m_slots;
    RingBuffer<ServerMetrics> m_metrics;
    RingBuffer<std::vector<SlotThroughput>> m_slotRates;
    RingBuffer<TotalThroughput> m_totalRates;
    RingBuffer<std::uint64_t> m_rss;
    std::uint64_t m_failedRequests = 0;
};

} // namespace llamafit
