#pragma once
// ServerLauncher: the launch sequence `llamafit-cli launch` runs, as a reusable object for the
// GUI's launch panel: probe the llama-server binary (ServerBinaryProbe, cached per binary),
// spell the argv the way that build knows (serverArgvForBuild), have the build check the
// whole argv (`llama-server <args> --version`, when it supports that), then
// ServerProcess::start. A setting the build cannot express, or an argv the build rejects, is
// refused before anything starts: a server that ignored a flag would not run the
// configuration that was estimated. When the probe itself fails (a missing binary, a crash)
// the 0.7.0 spelling is started unchecked, so ServerProcess reports the real failure
// (binary-missing, ...), as the CLI does. Every --rpc host must accept a connection before the
// start, else the launch is refused with rpc.unreachable (devicelist.h).
// Also sets the process's load limit from the model file's size (loadLimitForModel).
// Owns: its ServerBinaryProbe. Does not own the ServerProcess (the caller's, e.g. MainWindow's).
// Thread: the GUI thread (event-driven; blocks only for the --rpc hosts' connection check, which
// a refused loopback port answers at once and a remote host that is down holds for 3 s). Units:
// bytes.

#include "core/common/result.h"
#include "core/server/buildargv.h"
#include "core/server/launchfailure.h"
#include "core/sizing/serversettings.h"
#include "core/system/serverbinaryprobe.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

class ServerProcess;

struct LaunchRequest {
    QString program; // the llama-server binary (a path, or a name found on PATH)
    std::string modelPath;
    ServerSettings settings;
    LaunchArgvOptions argvOptions; // host, port, --metrics, -lv, extra words
};

// The argv a launch of `request` runs: spelled for `capabilities` when known, else the
// unprobed 0.7.0 spelling. An error when the build cannot express a setting.
Result<BuildArgv> launchArgv(const LaunchRequest& request,
                             const std::optional<BuildCapabilities>& capabilities);

// "llama-server 0.7.0 (build 11669)", or why the binary could not be probed.
QString describeVersion(const BinaryProbeOutcome& outcome);

// The memory an allocation failure proves the failed device has for llama.cpp's buffers, as
// `llamafit-cli launch` computes it: less than the buffers allocated before the failure plus
// the failed one (lowerBoundFromLog + failed size - 1), and for a host buffer no more than
// MemAvailable. nullopt when the failure is not an allocation failure with a size.
std::optional<std::uint64_t> allocationBudgetBytes(const LaunchFailure& failure);

class ServerLauncher : public QObject {
    Q_OBJECT
  public:
    explicit ServerLauncher(ServerProcess* process, QObject* parent = nullptr);

    ServerBinaryProbe& binaryProbe() { return m_binaryProbe; }
    // Probes `program` (from the cache when it has not changed); emits probed().
    void probe(const QString& program);
    // The cached capabilities of `program`, if probed and unchanged since.
    std::optional<BuildCapabilities> capabilities(const QString& program) const;

    // Probe -> argv for the build -> argv check -> start; emits probed(), notes(), then
    // started() or refused(). A launch while another one is still probing replaces it.
    // `spelled` is the argv the caller already spelled for `spelledFor` (the launch panel shows
    // it): when the probe finds that same build, it is used as is instead of spelled again.
    void launch(const LaunchRequest& request, std::optional<BuildArgv> spelled = std::nullopt,
                std::optional<BuildCapabilities> spelledFor = std::nullopt);
    // Forgets a launch still probing or checking (nothing was started yet).
    void cancel();
    bool busy() const { return m_phase != Phase::Idle; } // probing or checking before a start

  signals:
    void probed(const llamafit::BinaryProbeOutcome& outcome);
    void notes(const QStringList& notes); // re-spellings made for the build
    void refused(const llamafit::Error& error);
    void started(const QStringList& args); // passed to ServerProcess::start (it may add host/port)

  private:
    enum class Phase { Idle, Probing, Checking };
    void onProbed(const BinaryProbeOutcome& outcome);
    void onArgvChecked(const ArgvCheckOutcome& outcome);
    void startProcess(const QStringList& args);
    void refuse(Error error);

    ServerProcess* m_process;
    ServerBinaryProbe m_binaryProbe;
    LaunchRequest m_request;
    std::optional<BuildArgv> m_spelled;
    std::optional<BuildCapabilities> m_spelledFor;
    QStringList m_checkedArgs;
    Phase m_phase = Phase::Idle;
};

} // namespace llamafit
