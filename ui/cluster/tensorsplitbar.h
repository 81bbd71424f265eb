#pragma once
// TensorSplitBar: llama-server's -ts as a bar the user drags. One segment per device in
// llama.cpp's order (the RPC hosts first, by endpoint, then this machine's GPUs: the order -ts
// indexes, core/sizing/rpcdevices.h), each as wide as its share of the layers; a handle between
// two segments moves their common edge; a legend under the bar names each device with its share.
// Without -ts the segments show llama.cpp's default split, by each device's free memory
// (src/llama-model.cpp), and the first drag turns that into an explicit -ts. Keyboard:
// Left/Right move the focused handle by 1 %, with Shift or PageUp/PageDown by 10 %; Tab and
// Shift+Tab go from handle to handle before leaving the bar. Shares are written as whole percents
// (-ts 20,30,50), which llama.cpp normalises anyway.
// Used by ClusterPanel. Reads and writes the SizingSession's settings (tensorSplit only).
// Thread: GUI. Units: percent of the layers split over the devices.
// Object name: tensorSplitBar.

#include <QRect>
#include <QString>
#include <QWidget>

#include <vector>

namespace llamafit {

class SizingSession;

class TensorSplitBar : public QWidget {
    Q_OBJECT
  public:
    explicit TensorSplitBar(SizingSession* session, QWidget* parent = nullptr);

    // What is drawn (public for the widget tests and the panel's summary).
    int deviceCount() const { return static_cast<int>(m_labels.size()); }
    int handleCount() const { return deviceCount() > 1 ? deviceCount() - 1 : 0; }
    QString deviceLabel(int device) const; // the endpoint of an RPC host, else the GPU's name
    double sharePercent(int device) const;
    bool isDefaultSplit() const { return m_defaultSplit; } // no -ts: by free memory
    int focusedHandle() const { return m_focusedHandle; }
    void setFocusedHandle(int handle);
    QPoint handleCentre(int handle) const; // in widget pixels, where a drag starts

    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool focusNextPrevChild(bool next) override;

  private:
    void refresh();
    // Moves handle `handle` to `percent` (clamped between its neighbours) and writes -ts.
    void moveHandle(int handle, double percent);
    double edgePercent(int handle) const; // the left edge of segment handle + 1
    QRectF barRect() const;
    int handleAt(const QPointF& pixel) const; // -1 when none is near
    QString legendText(int device) const;     // "127.0.0.1:50052 14 %"
    std::vector<QRect> legendRects(int width) const;

    SizingSession* m_session;
    std::vector<QString> m_labels;
    std::vector<double> m_percents; // per device, summing to 100
    bool m_defaultSplit = true;
    int m_focusedHandle = 0;
    int m_draggedHandle = -1;
};

} // namespace llamafit
