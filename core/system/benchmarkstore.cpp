// Stored benchmark runs; see benchmarkstore.h.
#include "core/system/benchmarkstore.h"

#include "core/common/atomicfile.h"
#include "core/machine/speedmodel.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace llamafit {

namespace {

// File names from ids and model names: letters, digits, '.', '-', '_' only.
QString safeName(const QString& text) {
    QString name;
    for (const QChar c : text) {
        name += (c.isLetterOrNumber() || c == u'.' || c == u'-' || c == u'_') ? c : QChar(u'_');
    }
    return name.isEmpty() ? QStringLiteral("unnamed") : name.left(80);
}

constexpr auto kLiveRunsFile = "live-runs.json";

Result<std::string> readText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return makeError("bench.bad-record",
                         "cannot read " + path.toStdString() + ": " + file.errorString().toStdString());
    }
    return file.readAll().toStdString();
}

} // namespace

BenchmarkStore::BenchmarkStore(QString folder) : m_folder(std::move(folder)) {
    if (m_folder.isEmpty()) {
        // GenericDataLocation, not AppDataLocation: the GUI and llamafit-cli (which sets no
        // application name) must share one folder.
        m_folder = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
                   QStringLiteral("/LlamaFit/benchmarks");
    }
}

QString BenchmarkStore::filePath(const BenchRecord& record) const {
    const QFileInfo model(QString::fromStdString(record.modelPath));
    // The canonical path tells two files of the same name apart; the size a re-downloaded one.
    const QString canonical =
        model.canonicalFilePath().isEmpty() ? model.absoluteFilePath() : model.canonicalFilePath();
    const QString hash = QString::fromLatin1(
        QCryptographicHash::hash(canonical.toUtf8(), QCryptographicHash::Sha1).toHex().left(10));
    const QString name = safeName(model.completeBaseName()) + u'-' + QString::number(record.modelFileBytes) +
                         u'-' + hash + QStringLiteral("-b") + QString::number(record.buildNumber) +
                         QStringLiteral(".json");
    return m_folder + u'/' + safeName(QString::fromStdString(record.machineId)) + u'/' + name;
}

namespace {

// The records of one store file: none when it does not exist, bench.bad-record naming the path
// when it does not parse.
template <typename Record>
Result<std::vector<Record>> loadStoreFile(const QString& path,
                                          Result<std::vector<Record>> (*fromJson)(std::string_view)) {
    if (!QFileInfo::exists(path)) {
        return std::vector<Record>{};
    }
    Result<std::string> text = readText(path);
    if (!text) {
        return text.error();
    }
    Result<std::vector<Record>> records = fromJson(*text);
    if (!records) {
        return makeError("bench.bad-record", path.toStdString() + ": " + records.error().message);
    }
    return records;
}

Result<QString> writeStoreFile(const QString& path, const std::string& text) {
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        return makeError("bench.store-unwritable",
                         "cannot create " + QFileInfo(path).absolutePath().toStdString());
    }
    Result<bool> written = writeFileAtomically(path.toStdString(), text);
    if (!written) {
        return makeError("bench.store-unwritable", written.error().message);
    }
    return path;
}

} // namespace

Result<std::vector<BenchRecord>> BenchmarkStore::load(const BenchRecord& key) const {
    return loadStoreFile(filePath(key), &benchRecordsFromJson);
}

Result<QString> BenchmarkStore::append(const BenchRecord& record) {
    Result<std::vector<BenchRecord>> records = load(record);
    if (!records) {
        return records.error(); // never overwrite a file we could not read
    }
    records->push_back(record);
    return writeStoreFile(filePath(record), benchRecordsToJson(*records));
}

QString BenchmarkStore::liveRunsPath(const std::string& machineId) const {
    return m_folder + u'/' + safeName(QString::fromStdString(machineId)) + u'/' +
           QLatin1String(kLiveRunsFile);
}

Result<std::vector<LiveRunRecord>> BenchmarkStore::loadLiveRuns(const std::string& machineId) const {
    return loadStoreFile(liveRunsPath(machineId), &liveRunsFromJson);
}

Result<QString> BenchmarkStore::appendLiveRun(const LiveRunRecord& record) {
    Result<std::vector<LiveRunRecord>> records = loadLiveRuns(record.machineId);
    if (!records) {
        return records.error(); // never overwrite a file we could not read
    }
    records->push_back(record);
    if (records->size() > kMaxStoredLiveRuns) {
        records->erase(records->begin(),
                       records->begin() + static_cast<std::ptrdiff_t>(records->size() - kMaxStoredLiveRuns));
    }
    return writeStoreFile(liveRunsPath(record.machineId), liveRunsToJson(*records));
}

std::vector<BenchRecord> BenchmarkStore::loadMachine(const std::string& machineId,
                                                     std::vector<std::string>* problems) const {
    std::vector<BenchRecord> all;
    const QDir folder(m_folder + u'/' + safeName(QString::fromStdString(machineId)));
    for (const QFileInfo& file : folder.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        if (file.fileName() == QLatin1String(kLiveRunsFile)) {
            continue;
        }
        Result<std::string> text = readText(file.absoluteFilePath());
        Result<std::vector<BenchRecord>> records =
            text ? benchRecordsFromJson(*text) : Result<std::vector<BenchRecord>>(text.error());
        if (!records) {
            if (problems != nullptr) {
                problems->push_back(file.absoluteFilePath().toStdString() + ": " + records.error().message);
            }
            continue;
        }
        all.insert(all.end(), records->begin(), records->end());
    }
    return all;
}

LiveRunRecord BenchmarkStore::liveRunIdentity(const std::string& machineId, Backend backend,
                                              const std::string& modelPath, bool moe,
                                              const QDateTime& startedAt, const SpeedEfficiency& efficiency) {
    LiveRunRecord run;
    run.machineId = machineId;
    run.modelPath = modelPath;
    run.modelFileBytes = static_cast<std::uint64_t>(QFileInfo(QString::fromStdString(modelPath)).size());
    run.backend = backend;
    run.moe = moe;
    run.startedAt = startedAt.toUTC().toString(Qt::ISODate).toStdString();
    run.endedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    run.efficiencySource = speedSourceName(efficiency.source);
    return run;
}

SpeedEfficiency BenchmarkStore::efficiencyFor(const Machine& machine, bool moe) const {
    std::vector<EfficiencySample> samples = efficiencySamples(loadMachine(machine.id));
    if (const Result<std::vector<LiveRunRecord>> live = loadLiveRuns(machine.id)) {
        const std::vector<EfficiencySample> liveSamples = efficiencySamples(*live);
        samples.insert(samples.end(), liveSamples.begin(), liveSamples.end());
    }
    return learnSpeedEfficiency(speedBackend(machine), moe, samples);
}

} // namespace llamafit
