#include "ui/library/modellibrarymodel.h"

#include <QLocale>
#include <QStringList>

#include <algorithm>

namespace llamafit {

ModelLibraryModel::ModelLibraryModel(QObject* parent) : QAbstractTableModel(parent) {}

void ModelLibraryModel::setCards(std::vector<LibraryEntry> cards) {
    beginResetModel();
    m_entries.erase(m_entries.begin(), m_entries.begin() + m_cardCount);
    m_cardCount = static_cast<int>(cards.size());
    m_entries.insert(m_entries.begin(), std::make_move_iterator(cards.begin()),
                     std::make_move_iterator(cards.end()));
    endResetModel();
}

void ModelLibraryModel::clearScanned() {
    if (static_cast<int>(m_entries.size()) == m_cardCount) {
        return;
    }
    beginRemoveRows({}, m_cardCount, static_cast<int>(m_entries.size()) - 1);
    m_entries.resize(static_cast<std::size_t>(m_cardCount));
    endRemoveRows();
}

void ModelLibraryModel::addEntries(const std::vector<LibraryEntry>& entries) {
    if (entries.empty()) {
        return;
    }
    const int first = static_cast<int>(m_entries.size());
    beginInsertRows({}, first, first + static_cast<int>(entries.size()) - 1);
    m_entries.insert(m_entries.end(), entries.begin(), entries.end());
    endInsertRows();
}

int ModelLibraryModel::rowOf(const QString& pathOrCardId) const {
    const std::string wanted = pathOrCardId.toStdString();
    for (std::size_t row = 0; row < m_entries.size(); ++row) {
        const auto& entry = m_entries[row];
        if (entry.path == wanted ||
            std::find(entry.partPaths.begin(), entry.partPaths.end(), wanted) != entry.partPaths.end()) {
            return static_cast<int>(row);
        }
    }
    return -1;
}

int ModelLibraryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int ModelLibraryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ModelLibraryModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const auto& entry = m_entries[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return displayText(entry, index.column());
    case Qt::ToolTipRole:
        return toolTip(entry, index.column());
    case SortRole:
        return sortValue(entry, index.column());
    case PathRole:
        return QString::fromStdString(entry.path);
    case IsCardRole:
        return !entry.cardId.empty();
    case HasErrorRole:
        return entry.error.has_value();
    case HasMtpRole:
        return entry.summary.nextnLayerCount > 0;
    case ProjectorPathRole:
        return entry.mmprojPaths.empty() ? QString() : QString::fromStdString(entry.mmprojPaths.front());
    case Qt::TextAlignmentRole:
        if (index.column() == Parameters || index.column() == FileSize || index.column() == TrainingContext) {
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        }
        return {};
    default:
        return {};
    }
}

QVariant ModelLibraryModel::displayText(const LibraryEntry& entry, int column) const {
    const auto& summary = entry.summary;
    switch (column) {
    case Name:
        return QString::fromStdString(entry.name);
    case Architecture:
        return QString::fromStdString(summary.architecture);
    case Parameters:
        if (summary.parameterCount == 0) {
            return QString();
        }
        if (summary.moe) {
            return tr("%1 / %2 active")
                .arg(parameterText(summary.parameterCount), parameterText(summary.activeParameterCount));
        }
        return parameterText(summary.parameterCount);
    case Quantisation:
        return QString::fromStdString(summary.quantisation);
    case FileSize:
        return sizeText(summary.fileBytes);
    case TrainingContext:
        return summary.trainingContext == 0
                   ? QString()
                   : QLocale().toString(static_cast<qulonglong>(summary.trainingContext));
    case Badges:
        return badgesText(summary);
    case Status:
        if (entry.error) {
            return QString::fromStdString(entry.error->message);
        }
        return entry.mmprojPaths.empty() ? tr("OK") : tr("OK, with vision projector");
    case Source:
        return sourceText(entry);
    default:
        return {};
    }
}

QVariant ModelLibraryModel::toolTip(const LibraryEntry& entry, int column) const {
    if ((column == Name || column == Status) && entry.error) {
        return tr("Cannot be read: %1 (%2)")
            .arg(QString::fromStdString(entry.error->message), QString::fromStdString(entry.error->code));
    }
    switch (column) {
    case Name: {
        if (!entry.cardId.empty()) {
            return tr("Built-in model card %1: sized from its metadata, no download needed")
                .arg(QString::fromStdString(entry.cardId));
        }
        QStringList lines{QString::fromStdString(entry.path)};
        if (entry.partPaths.size() > 1) {
            lines << tr("Split model, parts: %1").arg(entry.partPaths.size());
        }
        for (const auto& projector : entry.mmprojPaths) {
            lines << tr("Vision projector (--mmproj): %1").arg(QString::fromStdString(projector));
        }
        return lines.join(QLatin1Char('\n'));
    }
    case Parameters:
        return tr("Parameters in the file; for a mixture of experts also those used per token");
    case Quantisation:
        return tr("general.file_type as llama-quantize names it, else the weight type with the most bytes");
    case TrainingContext:
        return tr("Training context in tokens: the default of -c / --ctx-size 0");
    case Badges:
        return tr("RS: recurrent state buffer (hybrid: with attention layers); SWA: sliding-window "
                  "attention; MLA: multi-head latent attention; MoE: mixture of experts; MTP: a NextN "
                  "block for multi-token prediction (choose \"with MTP drafting\" from the row's menu)");
    case Source:
        return entry.cardId.empty() ? QString::fromStdString(entry.root.path) : tr("Compiled into LlamaFit");
    default:
        return {};
    }
}

QVariant ModelLibraryModel::sortValue(const LibraryEntry& entry, int column) const {
    switch (column) {
    case Parameters:
        return static_cast<qulonglong>(entry.summary.parameterCount);
    case FileSize:
        return static_cast<qulonglong>(entry.summary.fileBytes);
    case TrainingContext:
        return static_cast<qulonglong>(entry.summary.trainingContext);
    default:
        return displayText(entry, column).toString().toLower();
    }
}

QVariant ModelLibraryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
    case Name:
        return tr("Name");
    case Architecture:
        return tr("Architecture");
    case Parameters:
        return tr("Parameters");
    case Quantisation:
        return tr("Quantisation");
    case FileSize:
        return tr("Size");
    case TrainingContext:
        return tr("Training context");
    case Badges:
        return tr("Badges");
    case Status:
        return tr("Status");
    case Source:
        return tr("Source");
    default:
        return {};
    }
}

QString ModelLibraryModel::badgesText(const ModelSummary& summary) const {
    QStringList badges;
    if (summary.recurrent) {
        badges << (summary.hybrid ? tr("RS (hybrid)") : tr("RS"));
    }
    if (summary.slidingWindow) {
        badges << tr("SWA");
    }
    if (summary.mla) {
        badges << tr("MLA");
    }
    if (summary.moe) {
        badges << tr("MoE");
    }
    if (summary.nextnLayerCount > 0) {
        badges << tr("MTP");
    }
    return badges.join(QStringLiteral(", "));
}

QString ModelLibraryModel::sourceText(const LibraryEntry& entry) const {
    if (!entry.cardId.empty()) {
        return tr("built-in card");
    }
    switch (entry.root.kind) {
    case LibraryRootKind::HfHubCache:
        return tr("Hugging Face cache");
    case LibraryRootKind::LegacyLlamaCppCache:
        return tr("llama.cpp cache");
    case LibraryRootKind::LmStudio:
        return tr("LM Studio");
    case LibraryRootKind::Ollama:
        return tr("Ollama");
    case LibraryRootKind::UserFolder:
        return tr("Folder %1").arg(QString::fromStdString(entry.root.path));
    }
    return {};
}

QString ModelLibraryModel::parameterText(std::uint64_t parameters) {
    const auto value = static_cast<double>(parameters);
    if (value >= 1e9) {
        return tr("%1 B").arg(value / 1e9, 0, 'f', 1);
    }
    if (value >= 1e6) {
        return tr("%1 M").arg(value / 1e6, 0, 'f', 1);
    }
    if (value >= 1e3) {
        return tr("%1 K").arg(value / 1e3, 0, 'f', 1);
    }
    return QString::number(parameters);
}

QString ModelLibraryModel::sizeText(std::uint64_t bytes) {
    constexpr double kKiB = 1024.0;
    const auto value = static_cast<double>(bytes);
    if (value >= kKiB * kKiB * kKiB) {
        return tr("%1 GiB").arg(value / (kKiB * kKiB * kKiB), 0, 'f', 1);
    }
    if (value >= kKiB * kKiB) {
        return tr("%1 MiB").arg(value / (kKiB * kKiB), 0, 'f', 1);
    }
    return tr("%1 KiB").arg(value / kKiB, 0, 'f', 1);
}

} // namespace llamafit
