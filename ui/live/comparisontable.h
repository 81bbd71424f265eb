#pragma once
// ComparisonTable ("comparisonTable"): predicted versus actual memory, one row per device
// and component (core/server/predictioncomparison.h): predicted MiB, the MiB llama-server
// logged, the error and the relative error; rows off by more than the tolerance are
// highlighted (bold, tinted with the "does not fit" colour, text from the palette). Used by
// LiveView once the server is ready.
// Owns: its rows. Thread: GUI thread. Units: MiB; relative error in percent.

#include "core/server/predictioncomparison.h"

#include <QTableWidget>

namespace llamafit {

class ComparisonTable : public QTableWidget {
    Q_OBJECT
  public:
    enum Column {
        DeviceColumn,
        ComponentColumn, // Qt::UserRole: the Component as int
        PredictedColumn, // Qt::UserRole on the numeric columns: the value as double
        ActualColumn,
        ErrorColumn,
        RelativeColumn, // Qt::UserRole: the fraction; empty when nothing was allocated
        ColumnCount
    };

    explicit ComparisonTable(QWidget* parent = nullptr);

    void setComparison(const PredictionComparison& comparison);
    void clearComparison();

    // The row of `component` on `device`, -1 if none.
    int rowOf(const QString& device, Component component) const;
    bool isRowFlagged(int row) const;
    int flaggedRowCount() const;
};

} // namespace llamafit
