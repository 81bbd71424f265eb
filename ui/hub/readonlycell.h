#pragma once
// A table cell the user can select but not edit, as the Hub dialogs' tables show their rows.

#include <QTableWidgetItem>

namespace llamafit {

inline QTableWidgetItem* readOnlyCell(const QString& text,
                                      Qt::Alignment alignment = Qt::AlignLeft | Qt::AlignVCenter) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    item->setTextAlignment(alignment);
    return item;
}

} // namespace llamafit
