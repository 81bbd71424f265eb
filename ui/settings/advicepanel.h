#pragma once
// AdvicePanel: the sizing solvers as buttons, and the decode-speed bound. "Largest context"
// sets -c to the largest context that fits the machine's budget with the current K/V types
// (largestContextPerKvPair), "Best KV types" sets -ctk/-ctv to the most precise pair that fits
// the current context (bestKvPairForContext), "Most GPU layers" sets -ngl (mostGpuLayers; only
// with a GPU); each says what it found, or that nothing fits and why, in "adviceResultLabel".
// Below: the decode speed llama-server can at most reach (estimateDecodeSpeed, seed 003's
// bandwidth / bytes-per-token model) at a full and a half-full slot, with the memory bandwidth
// editable (the machine's figure by default; an edit is SizingSession::setBandwidthOverride).
// Used by MainWindow. Owns only its widgets; writes the session through its setters.
// Thread: GUI. Units: tokens; bandwidth shown in decimal GB/s (1e9 bytes per second).
//
// objectNames: largestContextButton, bestKvButton, mostGpuLayersButton, adviceResultLabel,
// decodeSpeedLabel, bandwidthSpin, bandwidthResetButton.

#include "ui/sessionspeed.h"

#include <optional>
#include <string>
#include <utility>

#include <QString>
#include <QWidget>

class QDoubleSpinBox;
class QLabel;
class QPushButton;

namespace llamafit {

class SizingSession;
struct ContextFit;

class AdvicePanel : public QWidget {
    Q_OBJECT
  public:
    explicit AdvicePanel(SizingSession* session, QWidget* parent = nullptr);
    // Shows the decode-speed figures again: a benchmark just stored may change the efficiency.
    void refreshSpeed() { showEstimate(); }
    // Where the efficiency is learned from (default: BenchmarkStore's own folder).
    void setBenchmarkFolder(const QString& folder) {
        m_speed.setStore(BenchmarkStore(folder));
        showEstimate();
    }

  private:
    void buildControls();
    void adviseLargestContext();
    void adviseBestKvPair();
    void adviseMostGpuLayers();
    void showMachine();  // the GPU button on or off
    void showEstimate(); // the decode-speed label and the bandwidth spin
    void showResult(const QString& text, bool fits);
    // Why a solver found nothing (ContextFit::failure and its numbers), worded and translated.
    static QString fitFailureText(const ContextFit& fit);

    SizingSession* m_session;
    QPushButton* m_largestContextButton = nullptr;
    QPushButton* m_bestKvButton = nullptr;
    QPushButton* m_mostGpuLayersButton = nullptr;
    QLabel* m_resultLabel = nullptr;
    QLabel* m_decodeSpeedLabel = nullptr;
    SessionSpeed m_speed; // the decode label's figures
    QDoubleSpinBox* m_bandwidthSpin = nullptr;
    QPushButton* m_bandwidthResetButton = nullptr;
};

} // namespace llamafit
