// ServerLauncher: probe -> argv for the build -> whole-argv check -> start (see the header).

#include "core/system/serverlauncher.h"

#include "core/system/stringlists.h"

#include "core/server/allocationlog.h"
#include "core/server/devicelist.h"
#include "core/server/failurefixes.h"
#include "core/system/hostmemory.h"
#include "core/system/rpchostquery.h"
#include "core/system/serverprocess.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>

namespace llamafit {

Result<BuildArgv> launchArgv(const LaunchRequest& request,
                             const std::optional<BuildCapabilities>& capabilities) {
    if (!capabilities) {
        return BuildArgv{unprobedServerArgv(request.modelPath, request.settings, request.argvOptions), {}};
    }
    return serverArgvForBuild(request.settings, request.modelPath, *capabilities, request.argvOptions);
}

QString describeVersion(const BinaryProbeOutcome& outcome) {
    if (outcome.capabilities) {
        return QString::fromStdString(outcome.capabilities->label());
    }
    return QCoreApplication::translate("llamafit::ServerLauncher", "not usable: %1")
        .arg(QString::fromStdString(outcome.error.message));
}

std::optional<std::uint64_t> allocationBudgetBytes(const LaunchFailure& failure) {
    if (failure.reason != LaunchFailureReason::AllocationFailed || !failure.allocation ||
        !failure.allocation->failedBytes) {
        return std::nullopt;
    }
    std::uint64_t budget =
        lowerBoundFromLog(failure.log, *failure.allocation) + *failure.allocation->failedBytes;
    budget = budget > 0 ? budget - 1 : 0;
    // A host buffer also cannot exceed what the OS has free now (the log does not say it).
    if (failure.allocation->bufferType.empty() || isHostBufferType(failure.allocation->bufferType)) {
        if (Result<HostMemory> host = readHostMemory(); host && host->memAvailableBytes > 0) {
            budget = std::min(budget, host->memAvailableBytes);
        }
    }
    return budget;
}

ServerLauncher::ServerLauncher(ServerProcess* process, QObject* parent)
    : QObject(parent), m_process(process) {
    qRegisterMetaType<Error>();
    connect(&m_binaryProbe, &ServerBinaryProbe::probed, this, &ServerLauncher::onProbed);
    connect(&m_binaryProbe, &ServerBinaryProbe::argvChecked, this, &ServerLauncher::onArgvChecked);
}

void ServerLauncher::probe(const QString& program) {
    m_binaryProbe.probe(program);
}

std::optional<BuildCapabilities> ServerLauncher::capabilities(const QString& program) const {
    return m_binaryProbe.cached(program);
}

void ServerLauncher::launch(const LaunchRequest& request, std::optional<BuildArgv> spelled,
                            std::optional<BuildCapabilities> spelledFor) {
    m_request = request;
    m_spelled = std::move(spelled);
    m_spelledFor = std::move(spelledFor);
    // Every --rpc host must accept a connection before anything starts: llama-server aborts on the
    // first that does not while it parses --rpc (the build's own argv check included). A refused
    // loopback port answers at once; a remote host that is down costs the timeout.
    if (const auto silent = firstSilentEndpoint(m_request.settings.rpcServers, std::chrono::seconds(3))) {
        refuse(unreachableRpcHost(*silent));
        return;
    }
    m_phase = Phase::Probing;
    m_binaryProbe.probe(request.program);
}

void ServerLauncher::cancel() {
    m_phase = Phase::Idle;
}

void ServerLauncher::onProbed(const BinaryProbeOutcome& outcome) {
    emit probed(outcome);
    // Probes of other binaries (the panel's version label) pass through unused.
    if (m_phase != Phase::Probing || outcome.program != m_request.program) {
        return;
    }
    // The caller's argv when it was spelled for the build the probe found; else spelled now.
    Result<BuildArgv> built = m_spelled && m_spelledFor == outcome.capabilities
                                  ? Result<BuildArgv>(*m_spelled)
                                  : launchArgv(m_request, outcome.capabilities);
    m_spelled.reset();
    if (!built) {
        refuse(built.error());
        return;
    }
    if (!built->notes.empty()) {
        emit notes(toQStringList(built->notes));
    }
    const QStringList args = toQStringList(built->args);
    if (outcome.capabilities && outcome.capabilities->supportsArgvCheck) {
        m_phase = Phase::Checking;
        m_checkedArgs = args;
        m_binaryProbe.checkArgv(m_request.program, args);
        return;
    }
    // Unprobed (the 0.7.0 spelling) or a build that cannot check: started as is, and a
    // missing binary is reported by ServerProcess as Failed(binary-missing).
    startProcess(args);
}

void ServerLauncher::onArgvChecked(const ArgvCheckOutcome& outcome) {
    if (m_phase != Phase::Checking || outcome.program != m_request.program || outcome.args != m_checkedArgs) {
        return;
    }
    if (!outcome.accepted) {
        refuse(outcome.error);
        return;
    }
    startProcess(outcome.args);
}

void ServerLauncher::startProcess(const QStringList& args) {
    m_phase = Phase::Idle;
    ServerProcess::Timing timing = m_process->timing();
    timing.loadLimit = ServerProcess::loadLimitForModel(static_cast<std::uint64_t>(
        std::max<qint64>(QFileInfo(QString::fromStdString(m_request.modelPath)).size(), 0)));
    m_process->setTiming(timing);
    if (!m_process->start(m_request.program, args)) {
        refuse(makeError("launch.busy", "llama-server is already running; stop it first"));
        return;
    }
    emit started(args);
}

void ServerLauncher::refuse(Error error) {
    m_phase = Phase::Idle;
    emit refused(error);
}

} // namespace llamafit
