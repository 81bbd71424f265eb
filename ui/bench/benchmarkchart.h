#pragma once
// BenchmarkChart: one llama-bench run drawn against the speed model -- for prompt processing
// (pp) and generation (tg), one plot each since their rates differ by an order of magnitude:
// per tested depth the measured rate as a bar with its standard deviation, the expected rate
// (bound x efficiency) as a line with markers, and the bound as a dashed line. What the
// user sees at a glance is how far the prediction is from the machine, depth by depth.
// Used by BenchmarkDialog. Owns its two QCustomPlots. Thread: GUI. Units: tokens per second.

#include "core/server/benchrecord.h"

#include <QStringList>
#include <QVector>
#include <QWidget>

class QCPBars;
class QCPErrorBars;
class QCPGraph;
class QCustomPlot;

namespace llamafit {

class BenchmarkChart : public QWidget {
    Q_OBJECT
  public:
    enum class Kind { Prompt, Generation };
    // The series of one kind, in the order of the plottables: measured, expected, bound.
    struct Series {
        QCPBars* measured = nullptr;
        QCPErrorBars* spread = nullptr;
        QCPGraph* expected = nullptr;
        QCPGraph* bound = nullptr;
    };

    explicit BenchmarkChart(QWidget* parent = nullptr);

    // Draws `record` (predictions may be empty: then the bars alone); an empty record clears.
    void showRecord(const BenchRecord& record);

    QCustomPlot* plot(Kind kind) const { return kind == Kind::Prompt ? m_promptPlot : m_generationPlot; }
    // Test accessors: the values drawn, read back from the plottables, one per tested depth.
    QVector<double> measured(Kind kind) const;
    QVector<double> expected(Kind kind) const;
    QVector<double> bound(Kind kind) const;
    QStringList depthLabels(Kind kind) const;

  protected:
    void changeEvent(QEvent* event) override;

  private:
    QCustomPlot* makePlot(const QString& objectName, const QString& title, Series& series);
    void fill(Kind kind, const BenchRecord& record);
    void restyle();

    QCustomPlot* m_promptPlot;
    QCustomPlot* m_generationPlot;
    Series m_prompt;
    Series m_generation;
};

} // namespace llamafit
