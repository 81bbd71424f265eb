#pragma once
// LaunchPanel: starts and stops llama-server for the session's model and settings. Shows the
// binary (from $LLAMAFIT_LLAMA_SERVER, else llama-server on PATH, or chosen with Browse) and
// the version its probe reports, the host (a warning when it is not a loopback address) and
// port (0 = any free port), the exact command line the launch will run (spelled for the probed
// build, updated live from the session; copyable and exportable as a shell script, .bat,
// preset INI or llama-swap entry), Launch / Stop and the server's state. Launch is disabled,
// with the reason in its tooltip and the state label, for a built-in card (no file), for
// settings the estimate refuses, and without a binary. A failed launch opens FailureDialog
// (non-modal, so the log and the settings stay usable); a fix chosen there is applied to the session.
// Under the command line: llama.cpp's own projection of the settings from the llama-fit-params beside
// the binary, next to LlamaFit's, per device (ProjectionCrossCheck, in the background).
// Used by MainWindow, which owns the ServerProcess (shared with the live view) and persists
// serverBinary(), host() and port().
// Owns: its widgets and a ServerLauncher. Does not own the session or the process.
// Thread: GUI thread.
//
// Object names: serverBinaryEdit, serverBrowseButton, serverVersionLabel, hostEdit,
// hostWarningLabel, portSpin, commandLineEdit, copyCommandButton, exportButton (menu actions
// exportShellAction, exportBatchAction, exportIniAction, exportLlamaSwapAction),
// launchButton, stopButton, serverStateLabel, launchNotesLabel, projectionCheckLabel; the dialog:
// failureDialog.

#include "core/common/result.h"
#include "core/server/exports.h"
#include "core/server/launchfailure.h"
#include "core/sizing/serversettings.h"
#include "core/system/serverlauncher.h"
#include "core/system/serverprocess.h"
#include "ui/launch/launchexport.h"
#include "ui/launch/projectioncrosscheck.h"

#include <QPointer>
#include <QWidget>

#include <cstdint>
#include <optional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace llamafit {

class FailureDialog;
class SizingSession;

class LaunchPanel : public QWidget {
    Q_OBJECT
  public:
    LaunchPanel(SizingSession* session, ServerProcess* process, QWidget* parent = nullptr);

    // $LLAMAFIT_LLAMA_SERVER, else llama-server found on PATH, else empty.
    static QString defaultServerBinary();

    QString serverBinary() const;
    void setServerBinary(const QString& program); // probes it for the version label
    QString host() const;
    void setHost(const QString& host);
    // Whether the user chose network access ("Allow access from the network"): a non-loopback
    // host is refused without it, and with it the launch gets LlamaFit's API key file
    // (core/server/exposure.h, core/system/apikeyfile.h).
    bool networkAccessChosen() const;
    void setNetworkAccessChosen(bool chosen);
    std::uint16_t port() const; // 0: any free port
    void setPort(std::uint16_t port);

    // What a launch now would run, and the same as one shell line (quoted for this OS).
    LaunchRequest launchRequest() const;
    QString commandLine() const;
    ExportSpec exportSpec() const;
    // Saves the launch in `format` to `path` (what the export menu does after its file dialog).
    Result<bool> exportTo(ExportFormat format, const QString& path) const;
    // Why Launch is disabled now; empty when a launch is possible.
    // The selected binary's version as its probe reported it (the About box shows it).
    QString serverVersionText() const;
    QString launchBlocker() const;

    ServerLauncher* launcher() { return &m_launcher; }
    ProjectionCrossCheck* projectionCheck() { return &m_crossCheck; }
    FailureDialog* failureDialog() const; // the open one, if any

  public slots:
    void launch();
    void stop();

  private:
    void buildWidgets();
    void onBinaryEdited();
    void onProbed(const BinaryProbeOutcome& outcome);
    void onProcessState(ServerProcess::State state);
    void onProcessFailed(const LaunchFailure& failure);
    void onRefused(const Error& error);
    void browse();
    void chooseExport(ExportFormat format);
    void refresh();                                  // command line, host warning, buttons, state label
    void refreshWith(const Result<BuildArgv>& argv); // refresh(), with the argv already spelled
    // The argv a launch now would run (for the probed build, else 0.7.0's spelling), built once
    // per refresh for both the command line and the blocker.
    Result<BuildArgv> argvNow() const;
    // guardExposure with the box's choice and LlamaFit's key file (pure: writes nothing).
    Result<std::vector<std::string>> exposureGuarded(const std::string& host,
                                                     std::vector<std::string> extraArgs) const;
    QString commandLineOf(const Result<BuildArgv>& argv) const;
    QString launchBlockerOf(const Result<BuildArgv>& argv) const;
    QString stateText(ServerProcess::State state, const QString& blocker, QString* tip) const;
    void showProjectionCheck();

    SizingSession* m_session;
    ServerProcess* m_process;
    ServerLauncher m_launcher;
    ProjectionCrossCheck m_crossCheck;
    std::optional<BuildCapabilities> m_capabilities; // of m_probedProgram
    QString m_probedProgram;
    ServerSettings m_launchedSettings;
    QString m_refusal; // why the last launch was refused (nothing started)
    QPointer<FailureDialog> m_failureDialog;

    QLineEdit* m_binaryEdit = nullptr;
    QPushButton* m_browseButton = nullptr;
    QLabel* m_versionLabel = nullptr;
    QLineEdit* m_hostEdit = nullptr;
    QLabel* m_hostWarning = nullptr;
    QCheckBox* m_exposeCheck = nullptr; // network access chosen: a non-loopback host, with an API key
    QSpinBox* m_portSpin = nullptr;
    QLineEdit* m_commandLine = nullptr;
    QPushButton* m_copyButton = nullptr;
    QToolButton* m_exportButton = nullptr;
    QPushButton* m_launchButton = nullptr;
    QPushButton* m_stopButton = nullptr;
    QLabel* m_stateLabel = nullptr;
    QLabel* m_notesLabel = nullptr;
    QLabel* m_projectionLabel = nullptr;
};

} // namespace llamafit
