// Running llama-server --version / --help / <args> --version; see serverbinaryprobe.h.

#include "core/system/serverbinaryprobe.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSaveFile>
#include <QTimer>

#include <functional>
#include <memory>

namespace llamafit {
namespace {

struct RunResult {
    bool finished = false; // exited normally (any status) before the timeout
    int exitCode = -1;
    QString output;  // stdout + stderr
    QString problem; // why not finished
};

// Runs program args once, merged output, killed after `timeout`; `done` runs on the event
// loop when it ends. The QProcess deletes itself.
void runOnce(QObject* owner, const QString& program, const QStringList& args, const QProcessEnvironment& env,
             std::chrono::milliseconds timeout, std::function<void(RunResult)> done) {
    auto* process = new QProcess(owner);
    process->setProcessEnvironment(env);
    process->setProcessChannelMode(QProcess::MergedChannels);
    auto* timer = new QTimer(process);
    timer->setSingleShot(true);
    auto finished = std::make_shared<bool>(false);
    auto finish = [process, finished, done](RunResult result) {
        if (*finished) {
            return;
        }
        *finished = true;
        result.output = QString::fromUtf8(process->readAll());
        process->deleteLater();
        done(std::move(result));
    };
    // No waitFor*: the kill's exit arrives through finished() like any other.
    auto timedOut = std::make_shared<bool>(false);
    QObject::connect(timer, &QTimer::timeout, process, [process, timedOut] {
        *timedOut = true;
        process->kill();
    });
    QObject::connect(
        process, &QProcess::finished, process,
        [finish, timedOut, timeout](int code, QProcess::ExitStatus status) {
            if (*timedOut) {
                finish({false, -1, {}, QStringLiteral("no exit within %1 ms").arg(timeout.count())});
            } else if (status == QProcess::CrashExit) {
                finish({false, code, {}, QStringLiteral("crashed")});
            } else {
                finish({true, code, {}, {}});
            }
        });
    QObject::connect(process, &QProcess::errorOccurred, process,
                     [finish, process](QProcess::ProcessError error) {
                         if (error == QProcess::FailedToStart) {
                             finish({false, -1, {}, process->errorString()});
                         }
                     });
    timer->start(timeout);
    process->start(program, args);
}

// The server's own error line: "error: invalid argument: --no-mmap",
// "error while handling argument \"-ctk\": Unsupported cache type: q4_K".
QString errorLine(const QString& output) {
    for (const QString& line : output.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("error"))) {
            return line.trimmed();
        }
    }
    return output.trimmed().section(QLatin1Char('\n'), -1);
}

} // namespace

ServerBinaryProbe::ServerBinaryProbe(QObject* parent) : QObject(parent) {
    qRegisterMetaType<BinaryProbeOutcome>();
    qRegisterMetaType<ArgvCheckOutcome>();
}

ServerBinaryProbe::~ServerBinaryProbe() {
    // A `--version` / `--help` run still going when the probe goes (a window closed, a test
    // ending under load): ~QProcess would kill it and report its exit through finished(),
    // into callbacks on this object while it is being destroyed (seen as a crash in
    // LaunchPanelTest under a loaded machine). Silence each run first, then end it.
    for (QProcess* process : findChildren<QProcess*>(Qt::FindDirectChildrenOnly)) {
        process->disconnect();
        if (process->state() != QProcess::NotRunning) {
            process->kill();
            process->waitForFinished(1000);
        }
    }
}

QString ServerBinaryProbe::cacheKey(const QString& program) {
    const QString canonical = QFileInfo(program).canonicalFilePath();
    return canonical.isEmpty() ? QFileInfo(program).absoluteFilePath() : canonical;
}

void ServerBinaryProbe::setCacheFile(const QString& path) {
    m_cacheFile = path;
    loadCacheFile();
}

std::optional<BuildCapabilities> ServerBinaryProbe::cached(const QString& program) const {
    const QFileInfo info(program);
    const auto it = m_cache.constFind(cacheKey(program));
    if (it == m_cache.constEnd() || !info.exists() ||
        it->modifiedMs != info.lastModified().toMSecsSinceEpoch() || it->sizeBytes != info.size()) {
        return std::nullopt;
    }
    auto caps = parseBuildCapabilities(it->versionText.toStdString(), it->helpText.toStdString());
    return caps.ok() ? std::optional<BuildCapabilities>(*caps) : std::nullopt;
}

void ServerBinaryProbe::probe(const QString& program) {
    if (auto caps = cached(program)) {
        BinaryProbeOutcome outcome{program, std::move(caps), {}, true};
        QTimer::singleShot(0, this, [this, outcome] { emit probed(outcome); });
        return;
    }
    const QFileInfo info(program);
    if (!info.isFile() || !info.isExecutable()) {
        BinaryProbeOutcome outcome{program, std::nullopt,
                                   makeError("probe.not-executable",
                                             program.toStdString() + " is missing or not an executable file"),
                                   false};
        QTimer::singleShot(0, this, [this, outcome] { emit probed(outcome); });
        return;
    }
    Entry stamp;
    stamp.modifiedMs = info.lastModified().toMSecsSinceEpoch();
    stamp.sizeBytes = info.size();
    runTexts(program, cacheKey(program), stamp);
}

void ServerBinaryProbe::runTexts(const QString& program, const QString& key, const Entry& stamp) {
    auto fail = [this, program](const QString& what, const RunResult& result) {
        emit probed({program, std::nullopt,
                     makeError("probe.failed",
                               (program + QStringLiteral(" ") + what + QStringLiteral(": ") +
                                (result.finished ? QStringLiteral("exit status %1").arg(result.exitCode)
                                                 : result.problem))
                                   .toStdString()),
                     false});
    };
    runOnce(this, program, {QStringLiteral("--version")}, m_environment, m_timeout,
            [this, program, key, stamp, fail](RunResult version) {
                if (!version.finished || version.exitCode != 0) {
                    fail(QStringLiteral("--version"), version);
                    return;
                }
                runOnce(this, program, {QStringLiteral("--help")}, m_environment, m_timeout,
                        [this, program, key, stamp, fail, versionText = version.output](RunResult help) {
                            if (!help.finished || help.exitCode != 0) {
                                fail(QStringLiteral("--help"), help);
                                return;
                            }
                            Entry entry = stamp;
                            entry.versionText = versionText;
                            entry.helpText = help.output;
                            finishProbe(program, key, std::move(entry));
                        });
            });
}

void ServerBinaryProbe::finishProbe(const QString& program, const QString& key, Entry entry) {
    auto caps = parseBuildCapabilities(entry.versionText.toStdString(), entry.helpText.toStdString());
    if (!caps.ok()) {
        emit probed({program, std::nullopt, caps.error(), false});
        return;
    }
    m_cache.insert(key, std::move(entry));
    saveCacheFile();
    emit probed({program, *caps, {}, false});
}

void ServerBinaryProbe::checkArgv(const QString& program, const QStringList& args) {
    runOnce(this, program, args + QStringList{QStringLiteral("--version")}, m_environment, m_timeout,
            [this, program, args](RunResult result) {
                ArgvCheckOutcome outcome{
                    program, args, result.finished && result.exitCode == 0, {}, result.output};
                if (!outcome.accepted) {
                    const QString why = result.finished ? errorLine(result.output) : result.problem;
                    outcome.error =
                        makeError("probe.argv-rejected", (QFileInfo(program).fileName() +
                                                          QStringLiteral(" refused the arguments: ") + why)
                                                             .toStdString());
                }
                emit argvChecked(outcome);
            });
}

void ServerBinaryProbe::loadCacheFile() {
    QFile file(m_cacheFile);
    if (m_cacheFile.isEmpty() || !file.open(QIODevice::ReadOnly)) {
        return;
    }
    // A damaged cache only costs a re-probe: entries that do not read are skipped.
    const QJsonArray entries =
        QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("binaries")).toArray();
    for (const QJsonValue& value : entries) {
        const QJsonObject object = value.toObject();
        const QString path = object.value(QStringLiteral("path")).toString();
        if (path.isEmpty()) {
            continue;
        }
        Entry entry;
        entry.modifiedMs = static_cast<qint64>(object.value(QStringLiteral("modifiedMs")).toDouble());
        entry.sizeBytes = static_cast<qint64>(object.value(QStringLiteral("sizeBytes")).toDouble());
        entry.versionText = object.value(QStringLiteral("version")).toString();
        entry.helpText = object.value(QStringLiteral("help")).toString();
        m_cache.insert(path, entry);
    }
}

void ServerBinaryProbe::saveCacheFile() const {
    if (m_cacheFile.isEmpty()) {
        return;
    }
    QJsonArray entries;
    for (auto it = m_cache.constBegin(); it != m_cache.constEnd(); ++it) {
        entries.append(QJsonObject{{QStringLiteral("path"), it.key()},
                                   {QStringLiteral("modifiedMs"), static_cast<double>(it->modifiedMs)},
                                   {QStringLiteral("sizeBytes"), static_cast<double>(it->sizeBytes)},
                                   {QStringLiteral("version"), it->versionText},
                                   {QStringLiteral("help"), it->helpText}});
    }
    QDir().mkpath(QFileInfo(m_cacheFile).absolutePath());
    QSaveFile file(m_cacheFile);
    if (file.open(QIODevice::WriteOnly)) {
        file.write(QJsonDocument(QJsonObject{{QStringLiteral("binaries"), entries}}).toJson());
        file.commit(); // a cache that cannot be written is only a slower next start
    }
}

} // namespace llamafit
