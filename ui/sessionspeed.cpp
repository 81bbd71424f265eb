// The speed model for the session's plan; see sessionspeed.h.
#include "ui/sessionspeed.h"

#include "ui/sizingsession.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>

namespace llamafit {

SessionSpeed::SessionSpeed(const SizingSession* session, BenchmarkStore store)
    : m_session(session), m_store(std::move(store)) {}

void SessionSpeed::setStore(BenchmarkStore store) {
    m_store = std::move(store);
    m_efficiencyKey.reset();
}

const SpeedEfficiency& SessionSpeed::efficiency() {
    const bool moe = m_session->model().info.isMoe();
    // The machine's folder changes its time when a run is stored (files are written by rename),
    // so a benchmark made while the app runs is learned at the next figure, for one stat call.
    BenchRecord machineKey;
    machineKey.machineId = m_session->machine().id;
    const qint64 storedAt =
        QFileInfo(QFileInfo(m_store.filePath(machineKey)).absolutePath()).lastModified().toMSecsSinceEpoch();
    const EfficiencyKey key{m_session->machine().id, moe, storedAt};
    if (m_efficiencyKey != key) {
        m_efficiency = m_store.efficiencyFor(m_session->machine(), moe);
        m_efficiencyKey = key;
    }
    return m_efficiency;
}

std::optional<SpeedPrediction> SessionSpeed::predict(std::optional<std::uint32_t> filledTokens) {
    const Result<MemoryEstimate>& estimate = m_session->estimate();
    const std::optional<std::uint64_t> bandwidth = m_session->bandwidthBytesPerSecond();
    if (!estimate.ok() || !bandwidth || *bandwidth == 0) {
        return std::nullopt;
    }
    const SpeedInputs inputs =
        speedInputs(m_session->model().info, *estimate, *bandwidth, m_session->machine().fp16Tflops,
                    m_session->settings().ubatchTokens, filledTokens);
    return predictSpeed(inputs, efficiency());
}

QString decodeSpeedToolTipLine(const std::optional<SpeedPrediction>& prediction, std::uint32_t slotTokens) {
    if (!prediction) {
        return QCoreApplication::translate("SessionSpeed",
                                           "Decode speed: no memory bandwidth figure for this machine "
                                           "(enter one in the advice panel)");
    }
    return QCoreApplication::translate("SessionSpeed",
                                       "Decode speed with a full %1-token slot: ≤ %2 t/s bound · "
                                       "~%3 t/s expected (%4)")
        .arg(slotTokens)
        .arg(prediction->decodeTpsBound, 0, 'f', 1)
        .arg(prediction->decodeTpsExpected, 0, 'f', 1)
        .arg(efficiencySourceText(prediction->efficiency));
}

QString efficiencySourceText(const SpeedEfficiency& efficiency) {
    if (efficiency.source == SpeedSource::PublicDefaults) {
        QString basis;
        switch (efficiency.backend) {
        case Backend::Cpu:
            basis = QCoreApplication::translate("SpeedSource", "CPU (no public row; an assumed figure)");
            break;
        case Backend::Rpc:
            basis = QCoreApplication::translate("SpeedSource", "RPC (taken as CPU)");
            break;
        case Backend::Other:
            basis = QCoreApplication::translate("SpeedSource", "an unknown backend (taken as Vulkan)");
            break;
        case Backend::Cuda:
            basis = QStringLiteral("CUDA");
            break;
        case Backend::Metal:
            basis = QStringLiteral("Metal");
            break;
        case Backend::Rocm:
            basis = QStringLiteral("ROCm");
            break;
        case Backend::Vulkan:
            basis = QStringLiteral("Vulkan");
            break;
        }
        return (efficiency.moe ? QCoreApplication::translate("SpeedSource",
                                                             "public defaults for %1, MoE (docs/speed.md)")
                               : QCoreApplication::translate("SpeedSource",
                                                             "public defaults for %1, dense (docs/speed.md)"))
            .arg(basis);
    }
    QString from;
    if (efficiency.liveRuns == 0) {
        from = QCoreApplication::translate("SpeedSource", "%n llama-bench row(s)", "",
                                           int(efficiency.benchmarkRows));
    } else if (efficiency.benchmarkRows == 0) {
        from = QCoreApplication::translate("SpeedSource", "%n live run(s)", "", int(efficiency.liveRuns));
    } else {
        from = QCoreApplication::translate("SpeedSource", "%1 and %2")
                   .arg(QCoreApplication::translate("SpeedSource", "%n llama-bench row(s)", "",
                                                    int(efficiency.benchmarkRows)),
                        QCoreApplication::translate("SpeedSource", "%n live run(s)", "",
                                                    int(efficiency.liveRuns)));
    }
    QString text = QCoreApplication::translate("SpeedSource", "learned from %1 on this machine").arg(from);
    if (efficiency.decodeIsDefault) {
        text += QCoreApplication::translate("SpeedSource", " (decode: public default)");
    }
    if (efficiency.promptIsDefault) {
        text += QCoreApplication::translate("SpeedSource", " (prompt: public default)");
    }
    return text;
}

} // namespace llamafit
