#pragma once
// ModelSetChart: a planned model set on the machine's pools -- one stacked bar per pool: the
// machine's reservation (OS, desktop) at the bottom, then each model's share in set order, one
// colour per model, and the pool's size as a marker above. A model's share is what it adds at
// load; its run-time growth (prompt cache) is in the tooltip of the dialog's table, not drawn,
// so bars compare with the capacity the way the verdict at load does.
// Used by ModelSetDialog. Owns its QCustomPlot. Thread: GUI. Units: GiB on the axis.

#include "core/modelset/modelsetplan.h"

#include <QStringList>
#include <QVector>
#include <QWidget>

#include <vector>

class QCPBars;
class QCPGraph;
class QCustomPlot;

namespace llamafit {

class ModelSetChart : public QWidget {
    Q_OBJECT
  public:
    explicit ModelSetChart(QWidget* parent = nullptr);

    // Draws `plan`; a plan without members clears the chart.
    void showPlan(const ModelSetPlan& plan);

    QCustomPlot* plot() const { return m_plot; }
    // Test accessors, read back from the plottables, one value per pool in GiB.
    QVector<double> reservedBars() const;
    QVector<double> memberBars(std::size_t member) const;
    QVector<double> capacities() const;
    QStringList poolLabels() const;
    std::size_t memberCount() const { return m_members.size(); }

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void restyle();

    QCustomPlot* m_plot;
    QCPBars* m_reserved = nullptr;
    std::vector<QCPBars*> m_members;
    QCPGraph* m_capacity = nullptr;
};

} // namespace llamafit
