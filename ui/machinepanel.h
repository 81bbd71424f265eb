#pragma once
// MachinePanel: which machine the plan is for -- a built-in profile (the seed's EVO-X2 at
// 32/32, an RTX 4060 8 GB, ...) or this machine as discovered -- an APU's BIOS carve-out
// (what the BIOS offers, with the split the advisor recommends for the current model and
// settings), and the safety margin kept free in every pool. Writes the session's machine and
// margin; shows a one-line summary of the pools.
// Used by MainWindow. Thread: GUI thread. Units: MiB in the widgets, bytes in the session.

#include "core/machine/memorypools.h"

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QSpinBox;

namespace llamafit {

class SizingSession;
struct SplitAdvice;

class MachinePanel : public QWidget {
    Q_OBJECT
  public:
    explicit MachinePanel(SizingSession* session, QWidget* parent = nullptr);

    // Adds (or replaces) "This machine" in the list; selects it when `select`.
    void setDetectedMachine(const Machine& machine, bool select);
    // A built-in profile id or "detected"; false when there is no such entry.
    bool selectMachine(const QString& id);
    QString selectedMachineId() const;
    // An APU's carve-out chosen here; nullopt = the profile's own.
    std::optional<std::uint64_t> selectedCarveOutBytes() const;
    bool selectCarveOut(std::uint64_t bytes);

  private:
    void onMachineChosen();
    void onCarveOutChosen();
    void refreshCarveOuts();
    void refreshAdvice();
    // The core's BIOS split advice (numbers and ids) worded for the user, translated.
    static QString biosAdviceText(const SplitAdvice& advice);

    SizingSession* m_session;
    std::vector<Machine> m_machines; // combo order
    QComboBox* m_machineCombo;
    QComboBox* m_carveOutCombo;
    QLabel* m_carveOutLabel;
    QLabel* m_adviceLabel;
    QSpinBox* m_marginSpin;
    QLabel* m_summaryLabel;
};

} // namespace llamafit
