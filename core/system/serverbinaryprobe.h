#pragma once
// ServerBinaryProbe: finds out what one llama-server binary understands by running it with
// `--version` and then `--help` (QProcess, asynchronous: never blocks the GUI thread) and
// parsing the text (core/server/buildcapabilities.h). Results are cached in memory per
// canonical binary path + modification time + size, and, when setCacheFile() names a file,
// on disk as JSON holding the raw texts (re-parsed on load, so a parser fix applies to old
// entries). Also checks a whole argv before a start: `llama-server <args> --version` parses
// every argument and exits 0 without loading anything, or exits 1 naming the bad argument
// (verified on 0.7.0, see llama-server-conventions.md §1).
// Used by the launcher (`llamafit-cli launch`, later the GUI) before ServerProcess::start.
// Thread: create and use from one thread with an event loop.
// Caveat: a wrapper script's mtime does not change when the binary it execs is replaced.
//
// Error codes: probe.not-executable, probe.failed (crash, timeout, exit status), and those
// of parseBuildCapabilities; checkArgv: probe.argv-rejected (the server's own error line).

#include "core/common/result.h"
#include "core/server/buildcapabilities.h"

#include <QMap>
#include <QObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>

namespace llamafit {

struct BinaryProbeOutcome {
    QString program;
    std::optional<BuildCapabilities> capabilities; // set on success
    Error error;                                   // meaningful without capabilities
    bool fromCache = false;
};

struct ArgvCheckOutcome {
    QString program;
    QStringList args;
    bool accepted = false;
    Error error;    // probe.argv-rejected: message = the server's "error..." line
    QString output; // everything the check printed
};

class ServerBinaryProbe : public QObject {
    Q_OBJECT
  public:
    explicit ServerBinaryProbe(QObject* parent = nullptr);
    // Kills a probe still running, without its callbacks (see the .cpp).
    ~ServerBinaryProbe() override;

    void setEnvironment(const QProcessEnvironment& environment) { m_environment = environment; }
    void setTimeout(std::chrono::milliseconds timeout) { m_timeout = timeout; }
    // A JSON file for the cache across runs; read now, rewritten after each new probe.
    void setCacheFile(const QString& path);

    // The cached capabilities of `program` if its path, mtime and size still match.
    std::optional<BuildCapabilities> cached(const QString& program) const;
    // Emits probed() once: from the cache (queued, so never inside this call) or after
    // running the binary twice.
    void probe(const QString& program);
    // Runs `program args --version`; emits argvChecked().
    void checkArgv(const QString& program, const QStringList& args);

  signals:
    void probed(const llamafit::BinaryProbeOutcome& outcome);
    void argvChecked(const llamafit::ArgvCheckOutcome& outcome);

  private:
    struct Entry {
        qint64 modifiedMs = 0;
        qint64 sizeBytes = 0;
        QString versionText;
        QString helpText;
    };
    static QString cacheKey(const QString& program);
    void runTexts(const QString& program, const QString& key, const Entry& stamp);
    void finishProbe(const QString& program, const QString& key, Entry entry);
    void loadCacheFile();
    void saveCacheFile() const;

    QProcessEnvironment m_environment = QProcessEnvironment::systemEnvironment();
    std::chrono::milliseconds m_timeout{15000};
    QString m_cacheFile;
    QMap<QString, Entry> m_cache; // canonical path -> texts
};

} // namespace llamafit

Q_DECLARE_METATYPE(llamafit::BinaryProbeOutcome)
Q_DECLARE_METATYPE(llamafit::ArgvCheckOutcome)
