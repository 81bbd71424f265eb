#pragma once
// DockScrollArea: the scroll area a dock's panel sits in, holding the dock at least as wide and
// as high as the panel's own minimum (its longest label, combo text, button text), so that
// QMainWindow's dock layout cannot squeeze a panel and cut its controls at the dock's edge:
// a plain QScrollArea asks for almost nothing and lets the first layout give the dock a sliver
// (a 1366 x 768 screen showed the slots box as "auto (4, un"). Where the whole window is too
// small for that minimum, QMainWindow keeps the window's own minimum size instead. Width
// reserves room for the vertical scroll bar, so a bar that appears never covers the controls.
// Follows the panel: a change of its minimum (a longer text, a translation) updates the dock.
// Used by MainWindow for the Machine, Settings, Advice and Launch docks. Thread: GUI. Units: pixels.

#include <QScrollArea>

namespace llamafit {

class DockScrollArea : public QScrollArea {
    Q_OBJECT
  public:
    // Takes ownership of `content`.
    DockScrollArea(QWidget* content, QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    // The frame and the vertical scroll bar's width around the panel.
    QSize chrome() const;
};

} // namespace llamafit
