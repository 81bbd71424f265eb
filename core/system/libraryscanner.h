#pragma once
// LibraryScanner: runs the model library scan (core/library/libraryscan.h) over a list of
// roots on a worker thread and reports back on the thread that owns it (the GUI thread):
// progress (coalesced: at most one progress event waits in the queue at a time), batches of
// entries as folders are read, and finished(cancelled). The GUI thread never waits for it:
// starting a new scan cancels the running one and drops its late reports; only the destructor
// joins (cancel is checked per file, so that is at most one GGUF header read).
// Used by the GUI's ModelPickerPanel. Owns its worker threads. Units: file counts.

#include "core/library/libraryentry.h"
#include "core/library/modellocations.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

class QThread;

namespace llamafit {

class LibraryScanner : public QObject {
    Q_OBJECT
  public:
    explicit LibraryScanner(QObject* parent = nullptr);
    ~LibraryScanner() override; // cancels every scan and joins its thread

    // Starts scanning `roots` (cancelling a scan still running; its reports are dropped).
    void start(LibraryRoots roots);
    // Asks the running scan to stop after the file it is reading; finished(true) follows.
    void cancel();
    bool isRunning() const { return m_running; }

  signals:
    void progress(quint64 filesDone, quint64 filesFound, const QString& currentPath);
    void entriesFound(const std::vector<llamafit::LibraryEntry>& batch);
    // cancelled: cancel() was called (or the scan was replaced by a new one).
    void finished(bool cancelled);

  private:
    struct Job;
    void jobFinished(const std::shared_ptr<Job>& job);

    std::vector<std::shared_ptr<Job>> m_jobs; // running or joining; the last one is current
    std::uint64_t m_generation = 0;
    bool m_running = false;
};

} // namespace llamafit
