// The planned configuration and its estimate; see sizingsession.h.
#include "ui/sizingsession.h"

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
    m_settings = ServerSettings{};
    m_loraAdapters.clear();
    m_extraArgs.clear();
    emit modelChanged();
    emit settingsChanged();
    recompute();
}

void SizingSession::setSettings(const ServerSettings& settings) {
    if (settings == m_settings) {
        return;
    }
    m_settings = settings;
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
    if (machine == m_machine) {
        return;
    }
    m_machine = std::move(machine);
    m_gpus = sizingGpus(m_machine);
    emit machineChanged();
    recompute();
}

void SizingSession::setMarginBytes(std::uint64_t marginBytes) {
    if (marginBytes == m_marginBytes) {
        return;
    }
    m_marginBytes = marginBytes;
    recompute();
}

void SizingSession::setLoraAdapters(std::vector<LoraAdapterInfo> adapters) {
    if (adapters == m_loraAdapters) {
        return;
    }
    m_loraAdapters = std::move(adapters);
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

void SizingSession::recompute() {
    // The adapters' overload sizes from the model itself (no prepared model): a little slower, and
    // only while adapters are named.
    const bool adaptersRead =
        !m_settings.loraAdapters.empty() && m_settings.loraAdapters.size() == m_loraAdapters.size() &&
        std::equal(m_settings.loraAdapters.begin(), m_settings.loraAdapters.end(), m_loraAdapters.begin(),
                   [](const LoraAdapterSetting& setting, const LoraAdapterInfo& adapter) {
                       return setting.path == adapter.path;
                   });
    m_estimate = adaptersRead ? estimateMemory(m_model.info, m_settings, m_gpus, m_loraAdapters)
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
