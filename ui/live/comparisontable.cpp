// Predicted versus actual memory in the live view; see comparisontable.h.
#include "ui/live/comparisontable.h"

#include "core/machine/poolusage.h"
#include "ui/chartstyle.h"

#include <QHeaderView>

namespace llamafit {

namespace {

constexpr int kFlaggedRole = Qt::UserRole + 1;

QTableWidgetItem* numberItem(double value, const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setData(Qt::UserRole, value);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

ComparisonTable::ComparisonTable(QWidget* parent) : QTableWidget(0, ColumnCount, parent) {
    setObjectName(QStringLiteral("comparisonTable"));
    setHorizontalHeaderLabels(
        {tr("Device"), tr("Component"), tr("Predicted"), tr("Actual"), tr("Error"), tr("Error %")});
    setToolTip(tr("The estimate next to the buffers llama-server logged while loading (-lv 4); highlighted "
                  "rows are off by more than 1 %"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    verticalHeader()->setVisible(false);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void ComparisonTable::setComparison(const PredictionComparison& comparison) {
    clearComparison();
    QColor flaggedBackground = verdictColor(FitVerdict::DoesNotFit);
    flaggedBackground.setAlpha(70); // a tint: the palette's text stays readable on light and dark bases
    for (const DeviceComparison& device : comparison.devices) {
        for (const ComponentComparison& part : device.components) {
            const int row = rowCount();
            insertRow(row);
            auto* deviceItem = new QTableWidgetItem(QString::fromStdString(device.name));
            auto* componentItem = new QTableWidgetItem(componentLabel(part.component));
            componentItem->setData(Qt::UserRole, static_cast<int>(part.component));
            setItem(row, DeviceColumn, deviceItem);
            setItem(row, ComponentColumn, componentItem);
            setItem(row, PredictedColumn,
                    numberItem(part.predictedMiB, QString::number(part.predictedMiB, 'f', 2)));
            setItem(row, ActualColumn, numberItem(part.actualMiB, QString::number(part.actualMiB, 'f', 2)));
            setItem(row, ErrorColumn,
                    numberItem(part.errorMiB, (part.errorMiB >= 0 ? QStringLiteral("+") : QString()) +
                                                  QString::number(part.errorMiB, 'f', 2)));
            auto* relative = new QTableWidgetItem;
            relative->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (part.relativeError) {
                relative->setData(Qt::UserRole, *part.relativeError);
                relative->setText((*part.relativeError >= 0 ? QStringLiteral("+") : QString()) +
                                  QString::number(*part.relativeError * 100.0, 'f', 2) +
                                  QStringLiteral(" %"));
            }
            setItem(row, RelativeColumn, relative);
            deviceItem->setData(kFlaggedRole, part.flagged);
            if (part.flagged) {
                for (int column = 0; column < ColumnCount; ++column) {
                    QTableWidgetItem* cell = item(row, column);
                    cell->setBackground(flaggedBackground);
                    QFont font = cell->font();
                    font.setBold(true);
                    cell->setFont(font);
                    cell->setToolTip(tr("Off by more than %1 % and more than the log's rounding")
                                         .arg(comparison.toleranceFraction * 100.0, 0, 'g', 3));
                }
            }
        }
    }
}

void ComparisonTable::clearComparison() {
    setRowCount(0);
}

int ComparisonTable::rowOf(const QString& device, Component component) const {
    for (int row = 0; row < rowCount(); ++row) {
        if (item(row, DeviceColumn)->text() == device &&
            item(row, ComponentColumn)->data(Qt::UserRole).toInt() == static_cast<int>(component)) {
            return row;
        }
    }
    return -1;
}

bool ComparisonTable::isRowFlagged(int row) const {
    const QTableWidgetItem* cell = item(row, DeviceColumn);
    return cell != nullptr && cell->data(kFlaggedRole).toBool();
}

int ComparisonTable::flaggedRowCount() const {
    int flagged = 0;
    for (int row = 0; row < rowCount(); ++row) {
        flagged += isRowFlagged(row) ? 1 : 0;
    }
    return flagged;
}

} // namespace llamafit
