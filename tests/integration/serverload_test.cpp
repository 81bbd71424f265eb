// ServerProbe under load, against the real llama-server 0.7.0 on the tiny real-weight model:
// four concurrent /completion requests on four slots while the probe samples at 10 Hz. Asserts
// that the throughput series is non-zero while the requests run, that the tokens the series
// counts add up (per slot and in total) to what the responses report, and that the per-slot
// rate from /slots n_decoded deltas matches each response's timings.predicted_per_second within
// 10 %. Waits on the replies' finished signals and the probe's sampled signal, never on sleeps.

#include "core/system/serverprobe.h"
#include "core/system/serverprocess.h"
#include "tests/integration/serverprocessfixture.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"

#include <QDeadlineTimer>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSignalSpy>
#include <QTimer>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace llamafit {
namespace {

using State = ServerProcess::State;
using Clock = std::chrono::steady_clock;

constexpr int kSlots = 4;
// The tiny model's step time grows with the context (about 0.4 ms + 1.2 us per cached token
// for four slots on this machine), so a request that starts from an empty cache runs several
// times faster in its first 100 ms than at its end, and a probe that misses that first sample
// interval would read 15 % low. A prompt of ~400 tokens starts each slot with a filled cache,
// which flattens the rate to within ~2x over the run; 1500 generated tokens then take a few
// seconds, so the probe's sampled window covers almost all of it. 4 x 400 prompt tokens fit
// one n_batch (2048): each prompt is one decode, so slot-steps count exactly one per token.
constexpr int kPromptCharacters = 400; // one byte token each in the tiny model's vocabulary
constexpr int kPredictTokens = 1500;
constexpr int kContextTokens = 8192; // 2048 per slot (-np 4, not unified)
constexpr double kRateTolerance = 0.10;

double secondsBetween(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

struct Completion {
    Clock::time_point finishedAt;
    int slot = -1;
    double tokensPredicted = 0;
    double predictedMilliseconds = 0;
    double predictedPerSecond = 0;
};

// Running count of slot-steps (tokens decoded by all slots together) at one /metrics sample:
// llama.cpp tools/server/server-context.cpp adds the busy slots of each llama_decode() call to
// n_busy_slots_total and prints n_busy_slots_total / n_decode_total as the gauge.
double slotSteps(const ServerMetrics& metrics) {
    return std::round(metrics.decodeCallsTotal * metrics.busySlotsPerDecode);
}

class ServerLoadTest : public test::ServerProcessFixture {
  protected:
    ServerLoadTest() : ServerProcessFixture("load-tiny.gguf") {}
};

TEST_F(ServerLoadTest, ThroughputSeriesMatchesConcurrentRequests) {
    // -t 1: on two shared cores a single compute thread is several times faster than two
    // threads spinning against each other. --threads-http keeps the probe's three requests
    // from queueing behind the four completions.
    const QStringList args{QStringLiteral("-m"),          QString::fromStdString(m_model),
                           QStringLiteral("-c"),          QString::number(kContextTokens),
                           QStringLiteral("-np"),         QString::number(kSlots),
                           QStringLiteral("-fit"),        QStringLiteral("off"),
                           QStringLiteral("--no-warmup"), QStringLiteral("-t"),
                           QStringLiteral("1"),           QStringLiteral("--threads-http"),
                           QStringLiteral("12"),          QStringLiteral("--metrics")};
    QSignalSpy states(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(m_server, args));
    ASSERT_TRUE(waitForState(states, State::Ready, 60000)) << m_process.failure().message << "\n"
                                                           << m_process.log();

    ServerProbe probe(m_process.baseUrl(), 4096);
    probe.setInterval(std::chrono::milliseconds(100));
    QSignalSpy sampled(&probe, &ServerProbe::sampled);
    probe.start();
    // A baseline of both series before any request is sent.
    QDeadlineTimer baselineDeadline(20000);
    while ((probe.metrics().empty() || probe.slotStates().empty()) && !baselineDeadline.hasExpired()) {
        sampled.wait(1000);
    }
    ASSERT_FALSE(probe.metrics().empty());
    ASSERT_FALSE(probe.slotStates().empty());
    const ServerMetrics baseline = probe.metrics().latest().value;
    EXPECT_FALSE(probe.anySlotBusy());

    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    QUrl url = m_process.baseUrl();
    url.setPath(QStringLiteral("/completion"));
    QJsonObject body;
    body.insert(QStringLiteral("prompt"), QString(kPromptCharacters, QLatin1Char('a')));
    body.insert(QStringLiteral("n_predict"), kPredictTokens);
    body.insert(QStringLiteral("ignore_eos"), true); // exactly n_predict tokens per request
    const QByteArray payload = QJsonDocument(body).toJson(QJsonDocument::Compact);

    std::vector<Completion> completions;
    std::vector<QString> replyErrors;
    QEventLoop loop;
    const Clock::time_point sentAt = Clock::now();
    for (int i = 0; i < kSlots; ++i) {
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        QNetworkReply* reply = network.post(request, payload);
        QObject::connect(reply, &QNetworkReply::finished, &loop, [&, reply] {
            reply->deleteLater();
            if (reply->error() != QNetworkReply::NoError) {
                replyErrors.push_back(reply->errorString());
            } else {
                const QJsonObject answer = QJsonDocument::fromJson(reply->readAll()).object();
                const QJsonObject timings = answer.value(QStringLiteral("timings")).toObject();
                completions.push_back(
                    Completion{Clock::now(), answer.value(QStringLiteral("id_slot")).toInt(-1),
                               answer.value(QStringLiteral("tokens_predicted")).toDouble(),
                               timings.value(QStringLiteral("predicted_ms")).toDouble(),
                               timings.value(QStringLiteral("predicted_per_second")).toDouble()});
            }
            if (completions.size() + replyErrors.size() == static_cast<std::size_t>(kSlots)) {
                loop.quit();
            }
        });
    }
    QTimer::singleShot(180000, &loop, &QEventLoop::quit);
    loop.exec();
    ASSERT_TRUE(replyErrors.empty()) << replyErrors.front().toStdString();
    ASSERT_EQ(completions.size(), static_cast<std::size_t>(kSlots))
        << "the completions did not finish in time";
    Clock::time_point firstReplyAt = completions.front().finishedAt;
    Clock::time_point lastReplyAt = completions.front().finishedAt;
    for (const Completion& completion : completions) {
        firstReplyAt = std::min(firstReplyAt, completion.finishedAt);
        lastReplyAt = std::max(lastReplyAt, completion.finishedAt);
    }

    // One more sample of each series after the last reply: the finished counters are in it
    // and every slot is idle again.
    QDeadlineTimer afterDeadline(20000);
    while (
        (probe.metrics().latest().time <= lastReplyAt || probe.slotStates().latest().time <= lastReplyAt) &&
        !afterDeadline.hasExpired()) {
        sampled.wait(1000);
    }
    probe.stop();
    ASSERT_GT(probe.metrics().latest().time, lastReplyAt);
    ASSERT_GT(probe.slotStates().latest().time, lastReplyAt);
    EXPECT_FALSE(probe.anySlotBusy());
    ASSERT_LT(probe.metrics().pushedCount(), probe.metrics().capacity()) << "the ring buffer dropped samples";
    ASSERT_LT(probe.slotStates().pushedCount(), probe.slotStates().capacity());

    std::map<int, Completion> bySlot;
    double tokensPredicted = 0;
    for (const Completion& completion : completions) {
        ASSERT_GE(completion.slot, 0);
        EXPECT_EQ(completion.tokensPredicted, kPredictTokens);
        bySlot[completion.slot] = completion;
        tokensPredicted += completion.tokensPredicted;
        // llama.cpp tools/server/server-common.h n_gen_tps: the first token comes free with the
        // prompt's logits, so the reported rate is (n - 1) generation steps over predicted_ms.
        EXPECT_NEAR(completion.predictedPerSecond,
                    (completion.tokensPredicted - 1) / (completion.predictedMilliseconds / 1000.0),
                    completion.predictedPerSecond * 1e-6);
    }
    ASSERT_EQ(bySlot.size(), static_cast<std::size_t>(kSlots)) << "two requests shared a slot";

    // (1) The series is non-zero while the requests are in flight.
    const auto totals = probe.totalThroughputs().entries();
    bool totalNonZeroInFlight = false;
    for (const auto& entry : totals) {
        if (entry.time > sentAt && entry.time < firstReplyAt && entry.value.decodedTokensPerSecond > 0 &&
            entry.value.decodeCallsPerSecond > 0) {
            totalNonZeroInFlight = true;
        }
    }
    EXPECT_TRUE(totalNonZeroInFlight) << "no non-zero total throughput sample while the requests ran";
    const auto slotStates = probe.slotStates().entries();
    const auto slotRates = probe.slotThroughputs().entries();
    // One rate per pair of successive /slots samples, stamped with the later sample's time.
    ASSERT_EQ(slotRates.size() + 1, slotStates.size());
    std::set<int> slotsNonZeroInFlight;
    for (std::size_t i = 0; i < slotRates.size(); ++i) {
        ASSERT_EQ(slotRates[i].time, slotStates[i + 1].time);
        if (slotRates[i].time <= sentAt || slotRates[i].time >= firstReplyAt) {
            continue;
        }
        for (const SlotThroughput& rate : slotRates[i].value) {
            if (rate.tokensPerSecond > 0) {
                slotsNonZeroInFlight.insert(rate.id);
            }
        }
    }
    for (const auto& [slot, completion] : bySlot) {
        EXPECT_TRUE(slotsNonZeroInFlight.count(slot) == 1)
            << "slot " << slot << " never read non-zero while busy";
    }

    // (2) The numbers add up. Total: the finished-token counter and the live slot-step series
    // both count every generated token of the four requests.
    const ServerMetrics& after = probe.metrics().latest().value;
    EXPECT_EQ(after.tokensPredictedTotal - baseline.tokensPredictedTotal, tokensPredicted);
    EXPECT_EQ(slotSteps(after) - slotSteps(baseline), tokensPredicted);
    // The charted total series, integrated over its intervals, gives the same count.
    const auto metricsSamples = probe.metrics().entries();
    ASSERT_EQ(totals.size() + 1, metricsSamples.size());
    double integratedTotal = 0;
    for (std::size_t i = 0; i < totals.size(); ++i) {
        integratedTotal += totals[i].value.decodedTokensPerSecond *
                           secondsBetween(metricsSamples[i].time, metricsSamples[i + 1].time);
    }
    EXPECT_NEAR(integratedTotal, tokensPredicted, 1.0);

    // Per slot: the slot's rate series integrated over the samples where it was generating is
    // the n_decoded it reached, and that plus the n_remain it reported is the request's count.
    struct SlotWindow {
        std::size_t first = 0; // index into slotStates of the first sample with n_decoded >= 1
        std::size_t last = 0;  // ... and of the last one (still processing)
        bool seen = false;
    };
    std::map<int, SlotWindow> windows;
    for (std::size_t i = 0; i < slotStates.size(); ++i) {
        for (const SlotState& slot : slotStates[i].value) {
            if (!slot.isProcessing || slot.decodedTokens == 0) {
                continue;
            }
            SlotWindow& window = windows[slot.id];
            if (!window.seen) {
                window.first = i;
                window.seen = true;
            }
            window.last = i;
        }
    }
    auto slotAt = [&](std::size_t index, int id) -> const SlotState& {
        for (const SlotState& slot : slotStates[index].value) {
            if (slot.id == id) {
                return slot;
            }
        }
        ADD_FAILURE() << "slot " << id << " missing from sample " << index;
        return slotStates[index].value.front();
    };
    double slotRateSum = 0;
    for (const auto& [id, completion] : bySlot) {
        ASSERT_TRUE(windows[id].seen) << "slot " << id << " was never sampled while generating";
        const SlotWindow& window = windows[id];
        const SlotState& first = slotAt(window.first, id);
        const SlotState& last = slotAt(window.last, id);
        EXPECT_EQ(static_cast<double>(last.decodedTokens) + static_cast<double>(last.remainingTokens),
                  completion.tokensPredicted)
            << "slot " << id;
        double integrated = 0;
        for (std::size_t i = window.first; i < window.last; ++i) {
            for (const SlotThroughput& rate : slotRates[i].value) {
                if (rate.id == id) {
                    integrated +=
                        rate.tokensPerSecond * secondsBetween(slotStates[i].time, slotStates[i + 1].time);
                }
            }
        }
        const double decoded = static_cast<double>(last.decodedTokens - first.decodedTokens);
        EXPECT_NEAR(integrated, decoded, 0.5) << "slot " << id;

        // (3) The slot's average rate over its sampled generation matches the response's.
        const double span = secondsBetween(slotStates[window.first].time, slotStates[window.last].time);
        ASSERT_GT(span, 0.5) << "slot " << id << ": generation too short to sample";
        const double probeRate = integrated / span;
        slotRateSum += probeRate;
        EXPECT_NEAR(probeRate, completion.predictedPerSecond, completion.predictedPerSecond * kRateTolerance)
            << "slot " << id << ": probe " << probeRate << " t/s over " << span << " s, response "
            << completion.predictedPerSecond << " t/s";
    }
    // The per-slot rates add up to the total series over the run's generation.
    double generationSeconds = 0;
    double generationTokens = 0;
    for (std::size_t i = 0; i < totals.size(); ++i) {
        const auto& start = metricsSamples[i];
        const auto& end = metricsSamples[i + 1];
        if (start.value.requestsProcessing >= kSlots && end.value.requestsProcessing >= kSlots) {
            const double seconds = secondsBetween(start.time, end.time);
            generationSeconds += seconds;
            generationTokens += totals[i].value.decodedTokensPerSecond * seconds;
        }
    }
    ASSERT_GT(generationSeconds, 0.5) << "too few /metrics samples with every slot busy";
    const double totalRate = generationTokens / generationSeconds;
    EXPECT_NEAR(totalRate, slotRateSum, slotRateSum * kRateTolerance)
        << "total " << totalRate << " t/s, sum of slots " << slotRateSum << " t/s";
}

} // namespace
} // namespace llamafit
