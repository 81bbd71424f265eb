// Per-slot context fill in the live view; see slotfilltable.h.
#include "ui/live/slotfilltable.h"

#include <QHeaderView>
#include <QProgressBar>

#include <algorithm>

namespace llamafit {

SlotFillTable::SlotFillTable(QWidget* parent) : QTableWidget(0, ColumnCount, parent) {
    setObjectName(QStringLiteral("slotFillTable"));
    setHorizontalHeaderLabels({tr("Slot"), tr("State"), tr("Context tokens"), tr("Fill")});
    setToolTip(tr("Each slot (-np / --parallel) and how full its context (-c / --ctx-size divided by the "
                  "slots) is, from llama-server's /slots"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    verticalHeader()->setVisible(false);
    horizontalHeader()->setSectionResizeMode(FillColumn, QHeaderView::Stretch);
}

std::uint64_t SlotFillTable::contextTokens(const SlotState& slot) {
    return static_cast<std::uint64_t>(slot.promptTokens) + slot.decodedTokens;
}

void SlotFillTable::setSlots(const std::vector<SlotState>& states) {
    setRowCount(static_cast<int>(states.size()));
    for (int row = 0; row < rowCount(); ++row) {
        const SlotState& slot = states[static_cast<std::size_t>(row)];
        const std::uint64_t tokens = contextTokens(slot);
        const auto setText = [this, row](int column, const QString& text) {
            QTableWidgetItem* cell = item(row, column);
            if (cell == nullptr) {
                cell = new QTableWidgetItem;
                setItem(row, column, cell);
            }
            cell->setText(text);
        };
        setText(SlotColumn, QString::number(slot.id));
        setText(StateColumn, slot.isProcessing ? tr("processing") : tr("idle"));
        setText(TokensColumn, tr("%1 / %2").arg(tokens).arg(slot.nCtx));
        auto* bar = qobject_cast<QProgressBar*>(cellWidget(row, FillColumn));
        if (bar == nullptr) {
            bar = new QProgressBar;
            setCellWidget(row, FillColumn, bar);
        }
        bar->setObjectName(QStringLiteral("slotFillBar%1").arg(slot.id));
        bar->setRange(0, static_cast<int>(std::max<std::uint32_t>(slot.nCtx, 1)));
        bar->setValue(
            static_cast<int>(std::min<std::uint64_t>(tokens, std::max<std::uint32_t>(slot.nCtx, 1))));
        bar->setToolTip(tr("%1 of %2 tokens in slot %3's context").arg(tokens).arg(slot.nCtx).arg(slot.id));
    }
}

} // namespace llamafit
