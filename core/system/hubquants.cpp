// A repo's quants sized from their headers; see hubquants.h.

#include "core/system/hubquants.h"

#include "core/common/atomicfile.h"
#include "core/gguf/ggufreader.h"
#include "core/gguf/ggufsplit.h"
#include "core/hub/hubendpoint.h"
#include "core/model/loaderchecks.h"
#include "core/model/modelinterpreter.h"
#include "core/model/projectorinfo.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>

namespace llamafit {

namespace {

// One file's header: from the cache, else by Range (then cached).
Result<GgufFile> headerOf(HubClient& client, const HubHeaderCache& cache, const std::string& repoId,
                          const std::string& commit, const HubRepoFile& file, std::uint64_t& bytesRead) {
    if (std::optional<GgufFile> cached = cache.find(file.sha256, file.size)) {
        return std::move(*cached);
    }
    std::vector<std::uint8_t> headerBytes;
    auto header = client.readGgufHeader(hubResolveUrl(client.options().endpoint, repoId, commit, file.path),
                                        file.size, &bytesRead, &headerBytes);
    if (header && isSha256Hex(file.sha256)) {
        cache.store(file.sha256, headerBytes);
    }
    return header;
}

QuantCandidate sizeQuant(HubClient& client, const HubHeaderCache& cache, const std::string& repoId,
                         const std::string& commit, const RepoQuant& quant, std::uint64_t& bytesRead) {
    QuantCandidate candidate;
    candidate.quant = quant;
    std::vector<GgufFile> parts;
    std::vector<std::string> names;
    for (const HubRepoFile& file : quant.files) {
        auto header = headerOf(client, cache, repoId, commit, file, bytesRead);
        if (!header) {
            candidate.model = header.error();
            return candidate;
        }
        parts.push_back(std::move(*header));
        names.push_back(file.path);
    }
    auto merged = mergeGgufParts(std::move(parts), std::move(names));
    if (!merged) {
        candidate.model = merged.error();
        return candidate;
    }
    candidate.model = interpretLoadableModel(*merged);
    if (quant.projector && candidate.model) {
        auto header = headerOf(client, cache, repoId, commit, *quant.projector, bytesRead);
        if (header) {
            auto projector = interpretProjector(*header, quant.projector->path);
            if (projector) {
                candidate.projector = std::move(*projector);
            }
        }
    }
    return candidate;
}

} // namespace

HubHeaderCache::HubHeaderCache(std::string directory) : m_directory(std::move(directory)) {}

std::string HubHeaderCache::defaultDirectory() {
    return (QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) +
            QStringLiteral("/llamafit/gguf-headers"))
        .toStdString();
}

std::optional<GgufFile> HubHeaderCache::find(const std::string& sha256, std::uint64_t fileBytes) const {
    if (!isSha256Hex(sha256) || m_directory.empty()) {
        return std::nullopt;
    }
    QFile file(QString::fromStdString(m_directory + "/" + sha256));
    if (!file.open(QIODevice::ReadOnly)) {
        return std::nullopt;
    }
    const QByteArray bytes = file.readAll();
    const std::span<const std::uint8_t> view(reinterpret_cast<const std::uint8_t*>(bytes.constData()),
                                             static_cast<std::size_t>(bytes.size()));
    // A damaged entry parses as an error and is read again over the network.
    auto parsed = parseGguf(view, fileBytes);
    return parsed ? std::optional<GgufFile>(std::move(*parsed)) : std::nullopt;
}

void HubHeaderCache::store(const std::string& sha256, const std::vector<std::uint8_t>& headerBytes) const {
    if (!isSha256Hex(sha256) || m_directory.empty() || !QDir().mkpath(QString::fromStdString(m_directory))) {
        return; // a cache that cannot be written only costs the next read
    }
    (void)writeFileAtomically(
        m_directory + "/" + sha256,
        std::string_view(reinterpret_cast<const char*>(headerBytes.data()), headerBytes.size()));
}

Result<RepoQuantSizing> sizeRepoQuants(HubClient& client, const HubHeaderCache& cache,
                                       const std::string& repoId, const std::string& revision,
                                       const std::function<void(const std::string&)>& onQuant) {
    RepoQuantSizing sizing;
    auto commit = client.branchCommit(repoId, revision);
    if (!commit) {
        return commit.error();
    }
    sizing.commit = *commit;
    auto files = client.tree(repoId, sizing.commit);
    if (!files) {
        return files.error();
    }
    sizing.files = std::move(*files);
    for (const RepoQuant& quant : repoQuants(sizing.files)) {
        if (onQuant) {
            onQuant(quant.label);
        }
        sizing.candidates.push_back(sizeQuant(client, cache, repoId, sizing.commit, quant, sizing.bytesRead));
        if (sizing.candidates.back().model.ok() == false &&
            sizing.candidates.back().model.error().code == "hub.cancelled") {
            return sizing.candidates.back().model.error();
        }
    }
    return sizing;
}

} // namespace llamafit
