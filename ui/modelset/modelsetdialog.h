#pragma once
// ModelSetDialog: the set view. Opens a model set file (core/modelset/modelsetfile.h: several
// models, each with its own llama-server flags), plans it on the set's machine or, when the set
// names none, the machine the main window plans for (modelsetplan.h), and shows each pool as a
// bar with every model's share stacked (ModelSetChart), the models with their verdicts alone,
// which sets fit together, and the safe --models-max. Exports the set as llama-server's router
// preset (--models-preset INI) or a llama-swap config (modelsetexport.h), the same text
// `llamafit-cli export --set` prints.
// Used by MainWindow (File > Model set...). Owns its widgets, the loaded set and its plan.
// Thread: GUI. Units: bytes in the plan, MiB/GiB on screen.
//
// Object names: modelSetDialog, setOpenButton, setFileLabel, setMachineLabel, setStatusLabel,
// setChart, setModelsTable, setSubsetsTable, setSummaryLabel, setExportIniButton,
// setExportSwapButton.

#include "core/machine/memorypools.h"
#include "core/modelset/modelsetload.h"
#include "core/modelset/modelsetplan.h"

#include <QDialog>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;

namespace llamafit {

class ModelSetChart;

class ModelSetDialog : public QDialog {
    Q_OBJECT
  public:
    enum class ExportFormat { PresetIni, LlamaSwap };

    // `machine` and `marginBytes`: what the main window plans for, used when a set names no machine.
    ModelSetDialog(Machine machine, std::uint64_t marginBytes, QWidget* parent = nullptr);

    // Loads, plans and shows the set file; false when it could not (the status line says why,
    // and the view keeps the previous set).
    bool openSetFile(const QString& path);

    // The planned set and its export text; nullopt / an error before a set is open.
    const std::optional<ModelSetPlan>& plan() const { return m_plan; }
    Result<std::string> exportText(ExportFormat format) const;
    // Writes exportText(format) to `path` (atomically); false with the reason in the status line.
    bool saveExport(ExportFormat format, const QString& path);

    ModelSetChart* chart() const { return m_chart; }

  private:
    void chooseAndOpen();
    void chooseAndSave(ExportFormat format);
    void showPlan();
    void setStatus(const QString& text, bool problem);

    Machine m_sessionMachine;
    std::uint64_t m_marginBytes;

    std::string m_setName;
    Machine m_machine;
    std::vector<LoadedSetMember> m_members;
    std::optional<ModelSetPlan> m_plan;

    QPushButton* m_openButton;
    QLabel* m_fileLabel;
    QLabel* m_machineLabel;
    QLabel* m_statusLabel;
    ModelSetChart* m_chart;
    QTableWidget* m_modelsTable;
    QTableWidget* m_subsetsTable;
    QLabel* m_summaryLabel;
    QPushButton* m_exportIniButton;
    QPushButton* m_exportSwapButton;
};

} // namespace llamafit
