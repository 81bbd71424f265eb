#pragma once
// SizingSession: the configuration the user is planning -- one model, its ServerSettings, the
// machine it is planned for, the safety margin and the memory bandwidth -- and the sizing
// core's answers for it: the MemoryEstimate (or llama.cpp's reason it would refuse the
// settings) and the estimate placed on the machine's pools. Every panel reads it and writes
// it through the setters; each setter recomputes synchronously (one estimate through the sizing
// engine takes about 2 ms for the default card on a slow core, so a slider drag can recompute
// every step; the sweep chart's hundreds run on a worker thread) and emits what changed, then
// estimateChanged(). Setting a value equal to the current one emits nothing.
// The RPC hosts (ggml-rpc-servers, --rpc) have their one home here: machine() is the machine set
// with those hosts as devices in front of its GPUs (core/machine/rpccluster.h), and
// settings().rpcServers is always their endpoints, whatever setMachine(), setSettings() and
// setModel() bring. So is the llama.cpp build the estimate sizes for: the probed llama-server's
// (setServerBuild), else the reference build, is settings().llamaBuild.
// Owns: the prepared model, the settings, the machine, the results. No widgets, no I/O.
// Thread: the GUI thread. Units: bytes; bandwidth in bytes per second.

#include "core/common/result.h"
#include "core/machine/memorypools.h"
#include "core/machine/poolusage.h"
#include "core/machine/rpccluster.h"
#include "core/model/companionmodels.h"
#include "core/model/modelsource.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/sizingmodel.h"
#include "core/sizing/solvers.h"

#include <QObject>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

class SizingSession : public QObject {
    Q_OBJECT
  public:
    static constexpr std::uint64_t kDefaultMarginBytes = 1024ULL * 1024 * 1024; // --fit-target 1024 MiB

    // The settings the app gives a model that has no saved profile (MainWindow applies them):
    // -c 4096 (the seed articles' first step), or the training context when that is smaller.
    // Always an explicit -c: without one, llama-server 0.7.0 takes the training context and
    // --fit shrinks it to the free memory, so the plan would not be the run.
    static constexpr std::uint32_t kStartContextTokens = 4096;
    static ServerSettings startSettings(const ModelInfo& model);

    // Starts on the default built-in card (defaultModelCardId()) with llama-server's default
    // settings (ServerSettings{}), planned for `machine`.
    explicit SizingSession(Machine machine, QObject* parent = nullptr);

    void setModel(LoadedModel model); // emits modelChanged, settingsChanged (reset to ServerSettings{})
    void setSettings(const ServerSettings& settings); // emits settingsChanged
    // The machine the panel chose; the RPC hosts are applied to it (its own RPC devices, if any,
    // are replaced by rpcHosts()). When the number of devices changes, -ts is cleared: its entries
    // index the devices, so the old proportions would land on others; the split falls back to
    // llama.cpp's default, by free memory. Emits machineChanged, and settingsChanged when -ts is
    // cleared.
    void setMachine(Machine machine);
    // The ggml-rpc-servers the model is split over besides this machine, in --rpc order: sets
    // settings().rpcServers to their endpoints and clears -ts as setMachine() does. Emits
    // machineChanged and, when the settings change, settingsChanged.
    void setRpcHosts(std::vector<RpcHost> hosts);
    void setMarginBytes(std::uint64_t marginBytes);
    // llama-server flags from the "extra flags" field that do not change memory (-t 8,
    // --alias x, ...): passed to the launch after the settings' own flags. Emits extraArgsChanged.
    void setExtraArgs(std::vector<std::string> words);
    // The files the settings load besides the model (--lora adapters, -md, --mmproj) are read
    // here, headers only, whenever the settings name other paths (a restored profile too); a file
    // that cannot be read makes the estimate its error.
    // Memory bandwidth for the decode-speed estimate; nullopt = the machine's own figure.
    void setBandwidthOverride(std::optional<std::uint64_t> bytesPerSecond);
    // The build of the llama-server the launch will run (BuildCapabilities::buildNumber), nullopt
    // while none is probed or its version has no build number: the estimate then sizes for
    // kReferenceLlamaBuild. Emits settingsChanged when the generation changes, else
    // estimateChanged (what the estimate says it sized for).
    void setServerBuild(std::optional<std::uint32_t> build);

    const LoadedModel& model() const { return m_model; }
    const SizingModel& sizingModel() const { return m_sizingModel; }
    const ServerSettings& settings() const { return m_settings; }
    const std::vector<std::string>& extraArgs() const { return m_extraArgs; }
    const Machine& machine() const { return m_machine; } // with the RPC hosts
    const std::vector<RpcHost>& rpcHosts() const { return m_rpcHosts; }
    std::uint64_t marginBytes() const { return m_marginBytes; }
    std::optional<std::uint64_t> bandwidthBytesPerSecond() const; // override, else the machine's
    std::optional<std::uint64_t> bandwidthOverride() const { return m_bandwidthOverride; }
    std::optional<std::uint32_t> serverBuild() const { return m_serverBuild; }
    // The build the estimate sizes for: the probed server's, else kReferenceLlamaBuild.
    std::uint32_t sizedBuild() const;

    // The GPUs the estimate places layers on (sizingGpus(machine())).
    const std::vector<GpuDevice>& gpus() const { return m_gpus; }
    // What the solvers may use: machineBudget(machine(), marginBytes()).
    MemoryBudget budget() const;

    // The estimate for the current model, settings and GPUs, or the settings.* error that
    // says why llama-server would refuse them.
    const Result<MemoryEstimate>& estimate() const { return m_estimate; }
    // The estimate on the machine's pools; nullopt while the estimate is an error.
    const std::optional<PoolUsage>& poolUsage() const { return m_poolUsage; }

  signals:
    void modelChanged();
    void settingsChanged();
    void extraArgsChanged();
    void machineChanged();
    void estimateChanged();

  private:
    void recompute();
    // Reads the LoRA adapters' and the draft model's files when the settings name other paths
    // than the ones read, and prepares the model with them (core/model/companionmodels.h).
    void refreshCompanions();
    // Sets m_machine (with the hosts applied) and keeps the settings valid for its devices.
    void applyMachine(Machine machine);
    // `settings` with what the session owns in them: rpcServers set to the hosts' endpoints, the
    // generation of sizedBuild().
    ServerSettings withSessionFields(ServerSettings settings) const;

    LoadedModel m_model;
    SizingModel m_sizingModel;
    ServerSettings m_settings;
    std::vector<std::string> m_extraArgs;
    Machine m_machine; // the chosen machine with m_rpcHosts applied
    std::vector<RpcHost> m_rpcHosts;
    std::vector<GpuDevice> m_gpus;
    std::uint64_t m_marginBytes = kDefaultMarginBytes;
    std::optional<std::uint64_t> m_bandwidthOverride;
    std::optional<std::uint32_t> m_serverBuild;
    Result<MemoryEstimate> m_estimate{Error{}};
    std::optional<PoolUsage> m_poolUsage;
    // The companion files read for m_sizingModel (the adapters', the draft's, the projector's;
    // "" = none), and why they could not be read (the estimate's error then).
    std::vector<std::string> m_companionPaths{"", ""};
    std::optional<Error> m_companionError;
};

} // namespace llamafit
