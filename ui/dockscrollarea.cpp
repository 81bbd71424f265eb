// A dock's scroll area that holds the dock to its panel's minimum; see dockscrollarea.h.
#include "ui/dockscrollarea.h"

#include <QEvent>
#include <QScrollBar>
#include <QStyle>

namespace llamafit {

DockScrollArea::DockScrollArea(QWidget* content, QWidget* parent) : QScrollArea(parent) {
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setWidget(content);
    // The panel's layout posts LayoutRequest to the panel when its minimum changes; the dock's
    // layout only asks again when this area says its hints changed.
    content->installEventFilter(this);
}

QSize DockScrollArea::chrome() const {
    const int frame = 2 * frameWidth();
    const int scrollBar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, verticalScrollBar());
    return {frame + scrollBar, frame};
}

QSize DockScrollArea::minimumSizeHint() const {
    if (widget() == nullptr) {
        return QScrollArea::minimumSizeHint();
    }
    return widget()->minimumSizeHint().expandedTo(widget()->minimumSize()) + chrome();
}

QSize DockScrollArea::sizeHint() const {
    if (widget() == nullptr) {
        return QScrollArea::sizeHint();
    }
    return widget()->sizeHint().expandedTo(widget()->minimumSizeHint()) + chrome();
}

bool DockScrollArea::eventFilter(QObject* watched, QEvent* event) {
    if (watched == widget() && event->type() == QEvent::LayoutRequest) {
        updateGeometry();
    }
    return QScrollArea::eventFilter(watched, event);
}

} // namespace llamafit
