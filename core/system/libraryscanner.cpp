#include "core/system/libraryscanner.h"

#include "core/library/libraryscan.h"

#include <QMetaObject>
#include <QThread>

#include <algorithm>
#include <mutex>
#include <stop_token>

namespace llamafit {

// One scan: its thread, its stop source and the progress waiting to be delivered. Shared by
// the worker and the scanner, so a late report from a replaced scan finds it still alive.
struct LibraryScanner::Job {
    std::uint64_t generation = 0;
    std::stop_source stop;
    QThread* thread = nullptr;
    std::mutex mutex;
    LibraryScanProgress latest;  // guarded by mutex
    bool progressQueued = false; // guarded by mutex: a delivery is already in the event queue
    bool cancelled = false;      // written by the worker before it posts its end
};

LibraryScanner::LibraryScanner(QObject* parent) : QObject(parent) {}

LibraryScanner::~LibraryScanner() {
    for (const auto& job : m_jobs) {
        job->stop.request_stop();
    }
    for (const auto& job : m_jobs) {
        job->thread->wait();
        delete job->thread;
    }
}

void LibraryScanner::start(LibraryRoots roots) {
    if (m_running && !m_jobs.empty()) {
        m_jobs.back()->stop.request_stop();
    }
    auto job = std::make_shared<Job>();
    job->generation = ++m_generation;
    m_running = true;

    // The worker posts to this object's thread; reports from a replaced scan are dropped there.
    const auto deliverProgress = [this, job] {
        LibraryScanProgress latest;
        {
            const std::lock_guard lock(job->mutex);
            latest = job->latest;
            job->progressQueued = false;
        }
        if (job->generation == m_generation) {
            emit progress(latest.filesDone, latest.filesFound, QString::fromStdString(latest.currentPath));
        }
    };
    LibraryScanCallbacks callbacks;
    callbacks.progress = [this, job, deliverProgress](const LibraryScanProgress& update) {
        bool post = false;
        {
            const std::lock_guard lock(job->mutex);
            job->latest = update;
            post = !job->progressQueued;
            job->progressQueued = true;
        }
        if (post) {
            QMetaObject::invokeMethod(this, deliverProgress, Qt::QueuedConnection);
        }
    };
    callbacks.entries = [this, job](std::vector<LibraryEntry> batch) {
        QMetaObject::invokeMethod(
            this,
            [this, job, batch = std::move(batch)] {
                if (job->generation == m_generation) {
                    emit entriesFound(batch);
                }
            },
            Qt::QueuedConnection);
    };
    job->thread = QThread::create([this, job, roots = std::move(roots), callbacks = std::move(callbacks)] {
        const auto result = scanLibrary(roots, job->stop.get_token(), callbacks);
        job->cancelled = result.cancelled;
        QMetaObject::invokeMethod(
            this, [this, job] { jobFinished(job); }, Qt::QueuedConnection);
    });
    job->thread->setObjectName(QStringLiteral("LibraryScanner"));
    m_jobs.push_back(job);
    job->thread->start(QThread::LowPriority);
}

void LibraryScanner::cancel() {
    if (m_running && !m_jobs.empty()) {
        m_jobs.back()->stop.request_stop();
    }
}

void LibraryScanner::jobFinished(const std::shared_ptr<Job>& job) {
    // The worker posted this as its last act; the thread ends at once.
    job->thread->wait();
    job->thread->deleteLater();
    m_jobs.erase(std::remove(m_jobs.begin(), m_jobs.end(), job), m_jobs.end());
    if (job->generation == m_generation) {
        m_running = false;
        emit finished(job->cancelled);
    }
}

} // namespace llamafit
