// The planned configuration and its estimate; see sizingsession.h.
#include "ui/sizingsession.h"

#include "core/sizing/llamabuild.h"

#include "core/machine/machinebudget.h"
#include "core/model/modelspec.h"
#include "core/sizing/estimator.h"

#include <algorithm>
#include <string>
#include <utility>

namespace llamafit {

namespace {

// The built-in default card; a build whose cards do not parse is caught by the card tests,
// so an empty model here only keeps the app alive for the error to be seen.
LoadedModel defaultModel() {
    Result<LoadedModel> loaded = loadModel(std::string(defaultModelCardId()));
    return loaded ? std::move(*loaded) : LoadedModel{};
}

} // namespace

SizingSession::SizingSession(Machine machine, QObject* parent)
    : QObject(parent), m_model(defaultModel()), m_sizingModel(prepareModel(m_model.info)),
      m_machine(std::move(machine)), m_gpus(sizingGpus(m_machine)) {
    recompute();
}

ServerSettings SizingSession::startSettings(const ModelInfo& model) {
    ServerSettings settings;
    const std::uint64_t training = model.trainingContext > 0 ? model.trainingContext : kStartContextTokens;
    settings.contextTokens =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(kStartContextTokens, training));
    return settings;
}

void SizingSession::setModel(LoadedModel model) {
    m_model = std::move(model);
    m_sizingModel = prepareModel(m_model.info);
    m_companionPaths = {"", ""};
    m_companionError.reset();
    m_settings = withSessionFields(ServerSettings{});
    m_extraArgs.clear();
    emit modelChanged();
    emit settingsChanged();
    recompute();
}

void SizingSession::setSettings(const ServerSettings& settings) {
    ServerSettings withHosts = withSessionFields(settings);
    if (withHosts == m_settings) {
        return;
    }
    m_settings = std::move(withHosts);
    emit settingsChanged();
    recompute();
}

void SizingSession::setExtraArgs(std::vector<std::string> words) {
    if (words == m_extraArgs) {
        return;
    }
    m_extraArgs = std::move(words);
    emit extraArgsChanged();
}

void SizingSession::setMachine(Machine machine) {
    Machine withHosts = withRpcHosts(machine, m_rpcHosts);
    if (withHosts == m_machine) {
        return;
    }
    applyMachine(std::move(withHosts));
}

void SizingSession::setRpcHosts(std::vector<RpcHost> hosts) {
    if (hosts == m_rpcHosts) {
        return;
    }
    m_rpcHosts = std::move(hosts);
    applyMachine(withRpcHosts(m_machine, m_rpcHosts));
}

void SizingSession::applyMachine(Machine machine) {
    const std::size_t deviceCountBefore = m_machine.gpus.size();
    m_machine = std::move(machine);
    m_gpus = sizingGpus(m_machine);
    ServerSettings settings = withSessionFields(m_settings);
    // -ts entries index the devices in llama.cpp's order: with a device more or less they would
    // land on other devices (llama.cpp ignores entries past the last device), so the split goes back to
    // llama.cpp's default, by free memory.
    if (m_machine.gpus.size() != deviceCountBefore) {
        settings.tensorSplit.clear();
    }
    const bool settingsChange = settings != m_settings;
    m_settings = std::move(settings);
    emit machineChanged();
    if (settingsChange) {
        emit settingsChanged();
    }
    recompute();
}

ServerSettings SizingSession::withSessionFields(ServerSettings settings) const {
    settings.rpcServers.clear();
    for (const RpcHost& host : m_rpcHosts) {
        settings.rpcServers.push_back(host.endpoint);
    }
    settings.llamaBuild = sizedBuild();
    return settings;
}

std::uint32_t SizingSession::sizedBuild() const {
    return m_serverBuild.value_or(kReferenceLlamaBuild);
}

void SizingSession::setServerBuild(std::optional<std::uint32_t> build) {
    if (build == m_serverBuild) {
        return;
    }
    m_serverBuild = build;
    ServerSettings settings = withSessionFields(m_settings);
    if (settings == m_settings) {
        emit estimateChanged(); // the same rules, but what the chart says it sized for changed
        return;
    }
    m_settings = std::move(settings);
    emit settingsChanged();
    recompute();
}

void SizingSession::setMarginBytes(std::uint64_t marginBytes) {
    if (marginBytes == m_marginBytes) {
        return;
    }
    m_marginBytes = marginBytes;
    recompute();
}

void SizingSession::setBandwidthOverride(std::optional<std::uint64_t> bytesPerSecond) {
    if (bytesPerSecond == m_bandwidthOverride) {
        return;
    }
    m_bandwidthOverride = bytesPerSecond;
    emit estimateChanged(); // the decode-speed bound changes, the bytes do not
}

std::optional<std::uint64_t> SizingSession::bandwidthBytesPerSecond() const {
    return m_bandwidthOverride ? m_bandwidthOverride : m_machine.bandwidthBytesPerSecond;
}

MemoryBudget SizingSession::budget() const {
    return machineBudget(m_machine, m_marginBytes);
}

void SizingSession::refreshCompanions() {
    std::vector<std::string> adapterPaths;
    for (const LoraAdapterSetting& adapter : m_settings.loraAdapters) {
        adapterPaths.push_back(adapter.path);
    }
    std::vector<std::string> paths = adapterPaths;
    paths.push_back(m_settings.draftModel.path);
    paths.push_back(m_settings.projector.path);
    if (paths == m_companionPaths) {
        return;
    }
    m_companionPaths = std::move(paths);
    Result<CompanionModels> companions =
        loadCompanionModels(adapterPaths, m_settings.draftModel.path, m_settings.projector.path);
    m_companionError = companions ? std::nullopt : std::optional<Error>(companions.error());
    m_sizingModel = prepareModel(m_model.info, companions ? std::move(*companions) : CompanionModels{});
}

void SizingSession::recompute() {
    refreshCompanions();
    m_estimate = m_companionError ? Result<MemoryEstimate>(*m_companionError)
                                  : estimateMemory(m_sizingModel, m_settings, m_gpus);
    m_poolUsage.reset();
    if (m_estimate) {
        PlacementOptions options;
        options.marginBytes = m_marginBytes;
        m_poolUsage = placeOnMachine(*m_estimate, m_settings, m_model.info, m_machine, options);
    }
    emit estimateChanged();
}

} // namespace llamafit
