#pragma once
// LiveTimeChart: the base of the live view's time charts (memory, tokens/s): one QCustomPlot
// with data series over time (x: seconds since the server became ready) and horizontal
// reference lines (a prediction, a limit). Points go in cheaply as samples arrive; nothing
// is drawn until refresh(), which the live view's refresh timer calls at most every 250 ms
// (the Wireshark I/O graph / PlotJuggler pattern). The sliding window keeps only the points
// of the last window() seconds, counted back from the newest point, so memory stays bounded
// however long the server runs.
// Owns: the plot, its graphs and reference lines. Thread: GUI thread.
// Units: x in seconds; y in what the subclass says (MiB, tokens/s).

#include "ui/legendplot.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <chrono>
#include <vector>

class QCPGraph;
class QCustomPlot;

namespace llamafit {

class LiveTimeChart : public QWidget {
    Q_OBJECT
  public:
    static constexpr std::chrono::seconds kDefaultWindow{300}; // 5 minutes

    explicit LiveTimeChart(QWidget* parent = nullptr);

    // Points older than the newest point minus `window` are dropped (at the next point or
    // refresh). Windows under 1 s are raised to 1 s.
    void setWindow(std::chrono::seconds window);
    std::chrono::seconds window() const { return m_window; }

    // Trims to the window, fits the axes to the data and the reference lines, and asks for
    // a queued replot. Cheap enough to call every tick, but the live view calls it only when
    // new points arrived.
    void refresh();
    // Removes every point (graphs and reference lines stay).
    void clearPoints();
    // Removes the reference lines.
    void clearReferenceLines();

    QCustomPlot* plot() const { return m_plot; }
    int referenceLineCount() const { return static_cast<int>(m_references.size()); }
    // The newest x seen, 0 before any point.
    double newestSeconds() const { return m_newestSeconds; }
    int replotCount() const { return m_replotCount; }

  protected:
    // A data series; `dashed` for secondary ones. Owned by the plot.
    QCPGraph* addSeries(const QString& name, const QColor& color, bool dashed = false);
    // A series shown for context (host memory available) that does not set the y range: the
    // server's own memory must not be a flat line under a 32 GiB scale.
    void setScalesAxis(QCPGraph* graph, bool scales);
    void removeSeries(QCPGraph* graph);
    // Appends a point (x must not go backwards) and trims the series to the window.
    void addPoint(QCPGraph* graph, double seconds, double value);
    // A horizontal line across the whole window, listed in the legend.
    void addReferenceLine(const QString& name, double value, const QColor& color, Qt::PenStyle style);
    static int pointCount(const QCPGraph* graph);
    static double latestValue(const QCPGraph* graph); // 0 when empty
    void changeEvent(QEvent* event) override;

  private:
    struct ReferenceLine {
        QCPGraph* graph = nullptr;
        double value = 0;
        QString name; // the legend says "(off scale)" after it when the line is far above the data
    };
    void trim(QCPGraph* graph) const;

    LegendPlot* m_plot = nullptr;
    std::vector<QCPGraph*> m_contextSeries; // not scaling the y axis
    std::vector<QCPGraph*> m_series;
    std::vector<ReferenceLine> m_references;
    std::chrono::seconds m_window = kDefaultWindow;
    double m_newestSeconds = 0;
    int m_replotCount = 0;
};

} // namespace llamafit
