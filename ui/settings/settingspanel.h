#pragma once
// SettingsPanel: the llama-server flags that change memory, as controls -- context (a slider over
// ContextStops plus an exact spin box), slots, K and V cache types, GPU layers (with "all"),
// batch, ubatch, flash attention, unified KV, SWA-full, MTP drafting, load mode -- and an "extra flags" field
// for any other llama-server flag. Every change goes to SizingSession::setSettings at once (no
// apply button); when the session's settings change elsewhere (solver buttons, sweep clicks,
// restored profiles, a new model) the controls follow without writing back. Settings llama-server
// would refuse are shown at once: llama.cpp's reason in "settingsErrorLabel", the offending
// control framed in the verdict colour, and each K/V type the model cannot take marked in its
// combo item (still selectable). Next to the type combos, seed 003's KV-quantisation note.
// Used by MainWindow. Owns only its widgets; reads and writes the session. Thread: GUI.
// Units: tokens for context, batch and ubatch.
//
// objectNames: contextSlider, contextSpin, slotsSpin, cacheTypeKCombo, cacheTypeVCombo,
// gpuLayersSpin, gpuLayersAllCheck, batchSpin, ubatchSpin, flashAttentionCombo, kvUnifiedCombo,
// swaFullCheck, mtpDraftCheck (--spec-type draft-mtp; shown for a file with NextN blocks),
// loadModeCombo, extraFlagsEdit, extraFlagsNote, settingsErrorLabel, kvTypeNote,
// fitContextLabel (under the context: what llama-server's own fit would pick for -c left unset,
// core/sizing/fitreplica.h, with the -fitt/-fitc of the extra flags).
// An offending control has the dynamic property "invalid" set to true.

#include "core/sizing/contextstops.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/settingsvalidity.h"
#include "ui/settings/settingsvalidity.h"

#include <QString>
#include <QWidget>

#include <map>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;

namespace llamafit {

class SizingSession;

class SettingsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit SettingsPanel(SizingSession* session, QWidget* parent = nullptr);

    const ContextStops& contextStops() const { return m_stops; }

  private:
    void buildControls();
    void connectControls();
    // To the session, with -c filled in from the spin box when it is unset: the panel always passes -c.
    void write(ServerSettings settings);
    void applyExtraFlags();

    void showModel();      // stops and ranges for the session's model
    void showMachine();    // GPU controls on or off
    void showSettings();   // controls from the session's settings, without writing back
    void showValidity();   // error label, invalid marks, refused K/V items
    void showFitContext(); // "left unset, llama-server will pick -c N"
    void markCacheTypeItems(QComboBox* combo, CacheSide side);
    void markInvalid(QWidget* control, const QString& reason);

    SizingSession* m_session;
    ContextStops m_stops{0};

    QSlider* m_contextSlider = nullptr;
    QSpinBox* m_contextSpin = nullptr;
    QSpinBox* m_slotsSpin = nullptr;
    QComboBox* m_cacheTypeKCombo = nullptr;
    QComboBox* m_cacheTypeVCombo = nullptr;
    QSpinBox* m_gpuLayersSpin = nullptr;
    QCheckBox* m_gpuLayersAllCheck = nullptr;
    QSpinBox* m_batchSpin = nullptr;
    QSpinBox* m_ubatchSpin = nullptr;
    QComboBox* m_flashAttentionCombo = nullptr;
    QComboBox* m_kvUnifiedCombo = nullptr;
    QCheckBox* m_swaFullCheck = nullptr;
    QCheckBox* m_mtpCheck = nullptr;
    QComboBox* m_loadModeCombo = nullptr;
    QLineEdit* m_extraFlagsEdit = nullptr;
    QLabel* m_extraFlagsNote = nullptr;
    QLabel* m_errorLabel = nullptr;
    QLabel* m_kvTypeNote = nullptr;
    QLabel* m_fitContextLabel = nullptr;
    std::map<SettingsControl, QWidget*> m_controls;
    QString m_extraFlagsError; // why the extra flags were not applied; empty when they were
};

} // namespace llamafit
