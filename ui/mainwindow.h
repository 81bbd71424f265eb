#pragma once
// MainWindow: composes the panels around one SizingSession and wires their signals. It does
// not compute: every number comes from the session (core/sizing), the launcher and monitor
// (core/system). Layout: the plan (memory chart over the context sweep) and the live view as
// central tabs; the model library, machine, cluster, settings, advice and launch panels as docks whose
// arrangement persists. Remembers the app settings (AppSettings) and each model's last
// settings (ModelProfiles); the llama-server it started stops with it.
// Owns: the ServerProcess, the device discovery, the panels. Thread: GUI thread.

#include "core/library/modellocations.h"
#include "ui/appsettings.h"

#include <QMainWindow>

#include <memory>
#include <optional>
#include <vector>

class QSettings;
class QTabWidget;

namespace llamafit {

class AdvicePanel;
class BenchmarkDialog;
class ClusterPanel;
class DeviceDetection;
class LaunchPanel;
class LiveView;
class MachinePanel;
class MemoryChart;
class ModelPickerPanel;
class ModelProfiles;
class ServerProcess;
class SettingsPanel;
class SizingSession;
class SweepChart;

struct MainWindowOptions {
    // Library roots scanned besides the user's folders; nullopt = the standard model folders
    // of this OS (Hugging Face cache, llama.cpp cache, LM Studio, Ollama). Tests give their own.
    std::optional<LibraryRoots> libraryRoots;
    bool detectDevices = true; // run device discovery (Vulkan, sysfs) in the background
    QString profileFolder;     // ProfileStore's folder; empty = its default
    QString benchmarkFolder;   // BenchmarkStore's folder; empty = its default
};

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    // `session` and `settings` are owned by the caller and outlive the window; `appSettings`
    // are the values loaded at start (the window saves them back on close).
    MainWindow(SizingSession* session, QSettings* settings, AppSettings appSettings,
               MainWindowOptions options = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    SizingSession* session() const { return m_session; }
    ServerProcess* serverProcess() const { return m_process; }
    // Loads a GGUF path or card id into the session, restoring its last settings. On error the
    // current model stays and the message is shown (returned false).
    bool chooseModel(const QString& pathOrCardId);
    // The current values as they would be saved now.
    AppSettings currentAppSettings() const;
    void showStatus(const QString& message);

  protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

  private:
    void buildDocks();
    void buildMenus();
    void wireServer();
    void restoreProfile();
    void saveProfile();
    void openModelFile();
    void showAbout();
    void showBenchmark();

    SizingSession* m_session;
    QSettings* m_settings;
    AppSettings m_appSettings;
    MainWindowOptions m_options;
    std::unique_ptr<ModelProfiles> m_profiles;
    ServerProcess* m_process = nullptr;
    DeviceDetection* m_detection = nullptr;
    QTabWidget* m_tabs = nullptr;
    MemoryChart* m_memoryChart = nullptr;
    SweepChart* m_sweepChart = nullptr;
    LiveView* m_liveView = nullptr;
    ModelPickerPanel* m_picker = nullptr;
    MachinePanel* m_machinePanel = nullptr;
    SettingsPanel* m_settingsPanel = nullptr;
    AdvicePanel* m_advicePanel = nullptr;
    LaunchPanel* m_launchPanel = nullptr;
    ClusterPanel* m_clusterPanel = nullptr;
    BenchmarkDialog* m_benchmarkDialog = nullptr; // made at the first Server > Benchmark
    bool m_firstLayout = false;
    bool m_planSized = false; // the Plan splitter fitted to the screen at the first show
};

} // namespace llamafit
