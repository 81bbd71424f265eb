#pragma once
// ModelLibraryModel: the model picker's table -- the built-in model cards first, then the
// models the library scan found -- one LibraryEntry per row. Columns: name, architecture,
// parameters ("35.1 B / 3.3 B active"), quantisation, file size, training context, badges
// (RS / hybrid, SWA, MLA, MoE), status (the reader's error for unreadable files) and source.
// Display text is translated; SortRole gives numbers for the numeric columns so a
// QSortFilterProxyModel sorts sizes and counts as numbers; PathRole gives what -m (or the
// card id) takes. Used by ModelPickerPanel. Thread: GUI thread. Units: bytes, tokens.

#include "core/library/libraryentry.h"

#include <QAbstractTableModel>
#include <QString>

#include <vector>

namespace llamafit {

class ModelLibraryModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Name,
        Architecture,
        Parameters,
        Quantisation,
        FileSize,
        TrainingContext,
        Badges,
        Status,
        Source,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers for numeric columns, text otherwise
        PathRole,                    // QString: the path (or card id) the row stands for
        IsCardRole,                  // bool: a built-in card
        HasErrorRole,                // bool: the file could not be read
        HasMtpRole,                  // bool: the file has NextN (MTP) blocks
        ProjectorPathRole,           // QString: the first vision projector found with it; empty: none
    };

    explicit ModelLibraryModel(QObject* parent = nullptr);

    // Replaces the built-in cards (always the first rows).
    void setCards(std::vector<LibraryEntry> cards);
    // Removes every scanned row (the cards stay).
    void clearScanned();
    void addEntries(const std::vector<LibraryEntry>& entries);

    const LibraryEntry& entry(int row) const { return m_entries.at(static_cast<std::size_t>(row)); }
    int cardCount() const { return m_cardCount; }
    // The row whose path, card id or any split part is `pathOrCardId`; -1 if none.
    int rowOf(const QString& pathOrCardId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "35.1 B", "350.0 M"; "1.2 GiB", "512.0 MiB" (for tests and the panel's status line).
    static QString parameterText(std::uint64_t parameters);
    static QString sizeText(std::uint64_t bytes);

  private:
    QVariant displayText(const LibraryEntry& entry, int column) const;
    QVariant toolTip(const LibraryEntry& entry, int column) const;
    QVariant sortValue(const LibraryEntry& entry, int column) const;
    QString badgesText(const ModelSummary& summary) const;
    QString sourceText(const LibraryEntry& entry) const;

    std::vector<LibraryEntry> m_entries; // cards first
    int m_cardCount = 0;
};

} // namespace llamafit
