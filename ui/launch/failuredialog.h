#pragma once
// FailureDialog: the diagnosis of a failed llama-server launch. Shows the named reason
// (launchFailureName) and its message, the log lines that decided it, and the full log in a
// collapsible read-only view. For an allocation failure it names the component that did not
// fit (diagnoseAllocationFailure, with the failed device's budget as `llamafit-cli launch`
// computes it: allocationBudgetBytes) and offers one button per fix; clicking one emits
// fixChosen() with the whole new settings and closes the dialog (the caller applies them to
// the session). Other failures get a one-line suggestion.
// Used by LaunchPanel, which opens it non-modally when ServerProcess fails.
// Owns: its widgets and a copy of the failure. Reads the session once, at construction.
// Thread: GUI thread. Units: bytes (shown as MiB).
//
// Object names: failureDialog, failureReasonLabel, failureEvidenceList, failureSummaryLabel,
// fixButton_<fix id>, failureSuggestionLabel, failureLogToggle, failureLogView,
// failureCloseButton.

#include "core/server/failurefixes.h"
#include "core/server/launchfailure.h"
#include "core/sizing/serversettings.h"

#include <QDialog>

#include <optional>

class QVBoxLayout;

namespace llamafit {

class SizingSession;

class FailureDialog : public QDialog {
    Q_OBJECT
  public:
    // Diagnoses against the session's current settings.
    FailureDialog(const LaunchFailure& failure, const SizingSession& session, QWidget* parent = nullptr);
    // Diagnoses against the settings the failed server ran with (they may have changed since).
    FailureDialog(const LaunchFailure& failure, const SizingSession& session,
                  const ServerSettings& launchedSettings, QWidget* parent = nullptr);

    const LaunchFailure& failure() const { return m_failure; }
    // The allocation-failure diagnosis; nullopt for other failures or when none was computed.
    const std::optional<FailureDiagnosis>& diagnosis() const { return m_diagnosis; }

    // The one-line advice for a failure that has no computed fix ("pick another port ...").
    static QString suggestion(const LaunchFailure& failure);

  signals:
    void fixChosen(const llamafit::ServerSettings& settings);

  private:
    void addAllocationFixes(const SizingSession& session, const ServerSettings& settings,
                            QVBoxLayout* layout);

    LaunchFailure m_failure;
    std::optional<FailureDiagnosis> m_diagnosis;
};

} // namespace llamafit
