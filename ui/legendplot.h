#pragma once
// LegendPlot: a QCustomPlot with its legend in a row under the plot, wrapped to as many entries a
// row as the plot's width holds (at most `mostColumns`). A fixed count let the legend set the
// window's minimum width: three Japanese entries a row in the memory chart, two beside the live
// charts, made the main window 1413 px wide, wider than a 1366 x 768 screen. Its minimum width is
// its own (kMinimumWidth); the legend rewraps on every resize and when entries change (fitLegend).
// Used by the memory chart and the live charts. Thread: the GUI thread.

#include <qcustomplot.h>

namespace llamafit {

class LegendPlot : public QCustomPlot {
  public:
    static constexpr int kMinimumWidth = 280;

    explicit LegendPlot(int mostColumns, QWidget* parent = nullptr);

    // Rewraps the legend to the plot's current width; call after adding or removing entries.
    void fitLegend();

  protected:
    QSize minimumSizeHint() const override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    int m_mostColumns;
};

} // namespace llamafit
