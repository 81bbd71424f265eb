// The -ts split as a draggable bar; see tensorsplitbar.h.
#include "ui/cluster/tensorsplitbar.h"

#include "core/sizing/rpcdevices.h"
#include "core/sizing/tensorsplit.h"
#include "ui/sizingsession.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace llamafit {

namespace {

constexpr int kBarHeight = 44;
constexpr int kHandleWidth = 8;
constexpr int kHandleGrab = 10; // pixels either side of a handle that still grab it
constexpr double kKeyStep = 1.0;
constexpr double kLargeKeyStep = 10.0;

// Tableau 10, lightened: one colour per device, repeating after ten.
QColor segmentColor(int device) {
    static constexpr std::array<QRgb, 10> kColors{0x8fb4d9, 0xf5b26b, 0x9dd39a, 0xf08a8b, 0xb9a3d6,
                                                  0xc9a18f, 0xf2b6da, 0xbdbdbd, 0xdede8a, 0x8ad3dc};
    return QColor::fromRgb(kColors[static_cast<std::size_t>(device) % kColors.size()]);
}

// Each device's share in percent, as llama.cpp reads -ts for these devices (tensorsplit.h); even
// shares when nothing is known.
std::vector<double> sharesInPercent(const std::vector<double>& tensorSplit,
                                    const std::vector<GpuDevice>& gpus, bool& isDefault) {
    DeviceShares split = deviceSplitShares(tensorSplit, gpus);
    isDefault = split.byFreeMemory;
    std::vector<double>& shares = split.shares;
    for (double& share : shares) {
        share = std::max(0.0, share);
    }
    const double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
    for (double& share : shares) {
        share = sum > 0 ? share * 100.0 / sum : 100.0 / static_cast<double>(shares.size());
    }
    return shares;
}

} // namespace

TensorSplitBar::TensorSplitBar(SizingSession* session, QWidget* parent)
    : QWidget(parent), m_session(session) {
    setObjectName(QStringLiteral("tensorSplitBar"));
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setToolTip(tr("How llama.cpp splits the layers over the devices (-ts), in its device order: the RPC "
                  "hosts first, then this machine's GPUs. Drag a handle, or focus the bar and use the "
                  "arrow keys (Tab moves to the next handle)."));
    setAccessibleName(tr("Tensor split (-ts)"));
    connect(session, &SizingSession::settingsChanged, this, &TensorSplitBar::refresh);
    connect(session, &SizingSession::machineChanged, this, &TensorSplitBar::refresh);
    refresh();
}

void TensorSplitBar::refresh() {
    const std::vector<GpuDevice>& gpus = m_session->gpus();
    m_labels.clear();
    for (const GpuDevice& gpu : gpus) {
        const std::optional<std::string> endpoint = rpcEndpointOf(gpu.name);
        m_labels.push_back(QString::fromStdString(endpoint.value_or(gpu.name)));
    }
    m_percents = sharesInPercent(m_session->settings().tensorSplit, gpus, m_defaultSplit);
    m_focusedHandle = std::clamp(m_focusedHandle, 0, std::max(0, handleCount() - 1));
    setEnabled(handleCount() > 0);
    updateGeometry(); // the legend's height follows the labels
    update();
}

QString TensorSplitBar::deviceLabel(int device) const {
    return device >= 0 && device < deviceCount() ? m_labels[static_cast<std::size_t>(device)] : QString();
}

double TensorSplitBar::sharePercent(int device) const {
    return device >= 0 && device < deviceCount() ? m_percents[static_cast<std::size_t>(device)] : 0.0;
}

void TensorSplitBar::setFocusedHandle(int handle) {
    if (handle >= 0 && handle < handleCount() && handle != m_focusedHandle) {
        m_focusedHandle = handle;
        update();
    }
}

double TensorSplitBar::edgePercent(int handle) const {
    return std::accumulate(m_percents.begin(), m_percents.begin() + handle + 1, 0.0);
}

QRectF TensorSplitBar::barRect() const {
    const double margin = kHandleWidth / 2.0 + 1;
    return QRectF(margin, 1, width() - 2 * margin, kBarHeight);
}

QPoint TensorSplitBar::handleCentre(int handle) const {
    const QRectF bar = barRect();
    return QPointF(bar.left() + bar.width() * edgePercent(handle) / 100.0, bar.center().y()).toPoint();
}

int TensorSplitBar::handleAt(const QPointF& pixel) const {
    if (pixel.y() > barRect().bottom() + kHandleGrab) {
        return -1;
    }
    int nearest = -1;
    double nearestDistance = kHandleGrab + 1;
    for (int handle = 0; handle < handleCount(); ++handle) {
        const double distance = std::abs(pixel.x() - handleCentre(handle).x());
        // Handles on one spot (a device squeezed to 0 %): at or right of the spot the last of them
        // is taken, which can move right; left of it the first, which can move left.
        const bool tieGoesRight = distance == nearestDistance && pixel.x() >= handleCentre(handle).x();
        if (distance < nearestDistance || tieGoesRight) {
            nearest = handle;
            nearestDistance = distance;
        }
    }
    return nearest;
}

void TensorSplitBar::moveHandle(int handle, double percent) {
    // Whole percents: the edges the user did not move are rounded too, so the first drag away
    // from the free-memory default writes a -ts that reads well.
    std::vector<double> edges;
    for (int h = 0; h < handleCount(); ++h) {
        edges.push_back(std::round(edgePercent(h)));
    }
    const double low = handle > 0 ? edges[static_cast<std::size_t>(handle - 1)] : 0.0;
    const double high = handle + 1 < handleCount() ? edges[static_cast<std::size_t>(handle + 1)] : 100.0;
    edges[static_cast<std::size_t>(handle)] = std::clamp(std::round(percent), low, high);
    std::vector<double> split;
    double previous = 0.0;
    for (double edge : edges) {
        split.push_back(edge - previous);
        previous = edge;
    }
    split.push_back(100.0 - previous);
    ServerSettings settings = m_session->settings();
    settings.tensorSplit = std::move(split);
    m_session->setSettings(settings);
}

void TensorSplitBar::mousePressEvent(QMouseEvent* event) {
    const int handle = handleAt(event->position());
    if (event->button() == Qt::LeftButton && handle >= 0) {
        m_draggedHandle = handle;
        setFocusedHandle(handle);
        event->accept();
        return;
    }
    QWidget::mousePressEvent(event);
}

void TensorSplitBar::mouseMoveEvent(QMouseEvent* event) {
    if (m_draggedHandle >= 0) {
        const QRectF bar = barRect();
        moveHandle(m_draggedHandle, (event->position().x() - bar.left()) * 100.0 / bar.width());
        event->accept();
        return;
    }
    setCursor(handleAt(event->position()) >= 0 ? Qt::SplitHCursor : Qt::ArrowCursor);
}

void TensorSplitBar::mouseReleaseEvent(QMouseEvent* event) {
    m_draggedHandle = -1;
    QWidget::mouseReleaseEvent(event);
}

void TensorSplitBar::keyPressEvent(QKeyEvent* event) {
    if (handleCount() == 0) {
        QWidget::keyPressEvent(event);
        return;
    }
    const bool large = event->modifiers().testFlag(Qt::ShiftModifier);
    const double step = large ? kLargeKeyStep : kKeyStep;
    const double edge = edgePercent(m_focusedHandle);
    switch (event->key()) {
    case Qt::Key_Left:
        moveHandle(m_focusedHandle, std::round(edge) - step);
        break;
    case Qt::Key_Right:
        moveHandle(m_focusedHandle, std::round(edge) + step);
        break;
    case Qt::Key_PageDown:
        moveHandle(m_focusedHandle, std::round(edge) - kLargeKeyStep);
        break;
    case Qt::Key_PageUp:
        moveHandle(m_focusedHandle, std::round(edge) + kLargeKeyStep);
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

bool TensorSplitBar::focusNextPrevChild(bool next) {
    if (hasFocus()) {
        if (next && m_focusedHandle + 1 < handleCount()) {
            setFocusedHandle(m_focusedHandle + 1);
            return true;
        }
        if (!next && m_focusedHandle > 0) {
            setFocusedHandle(m_focusedHandle - 1);
            return true;
        }
    }
    return QWidget::focusNextPrevChild(next);
}

QString TensorSplitBar::legendText(int device) const {
    return deviceLabel(device) + QStringLiteral(" ") + QString::number(sharePercent(device), 'f', 0) +
           QStringLiteral(" %");
}

// The legend under the bar: a swatch and "label NN %" per device, wrapped to `width`; the
// segments of small devices are too narrow for their names.
std::vector<QRect> TensorSplitBar::legendRects(int width) const {
    const QFontMetrics metrics = fontMetrics();
    const int swatch = metrics.height() - 4;
    const int spacing = metrics.horizontalAdvance(QStringLiteral("  "));
    std::vector<QRect> rects;
    int x = 0;
    int y = kBarHeight + 6;
    for (int device = 0; device < deviceCount(); ++device) {
        const int entryWidth = swatch + 4 + metrics.horizontalAdvance(legendText(device));
        if (x > 0 && x + entryWidth > width) {
            x = 0;
            y += metrics.height() + 2;
        }
        rects.emplace_back(x, y, entryWidth, metrics.height());
        x += entryWidth + spacing;
    }
    return rects;
}

bool TensorSplitBar::hasHeightForWidth() const {
    return true;
}

int TensorSplitBar::heightForWidth(int width) const {
    const std::vector<QRect> rects = legendRects(width);
    return rects.empty() ? kBarHeight + 2 : rects.back().bottom() + 2;
}

QSize TensorSplitBar::sizeHint() const {
    return QSize(360, heightForWidth(360));
}

QSize TensorSplitBar::minimumSizeHint() const {
    return QSize(120, heightForWidth(width() > 0 ? width() : 360));
}

void TensorSplitBar::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF bar = barRect();
    const QColor text(0x20, 0x20, 0x20); // on the light segment colours, in both themes
    if (deviceCount() == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(bar, Qt::AlignCenter, tr("No GPU and no RPC host: nothing to split"));
        return;
    }
    double left = bar.left();
    for (int device = 0; device < deviceCount(); ++device) {
        const double width = bar.width() * sharePercent(device) / 100.0;
        const QRectF segment(left, bar.top(), width, bar.height());
        painter.fillRect(segment, segmentColor(device));
        painter.setPen(text);
        // The name and share where they fit whole, else the share alone; the legend has both.
        const QString share = QString::number(sharePercent(device), 'f', 0) + QStringLiteral(" %");
        const int room = static_cast<int>(width) - 4;
        const QFontMetrics metrics = painter.fontMetrics();
        if (metrics.horizontalAdvance(deviceLabel(device)) <= room) {
            painter.drawText(segment, Qt::AlignCenter, deviceLabel(device) + u'\n' + share);
        } else if (metrics.horizontalAdvance(share) <= room) {
            painter.drawText(segment, Qt::AlignCenter, share);
        }
        left += width;
    }
    const std::vector<QRect> legend = legendRects(this->width());
    for (int device = 0; device < deviceCount(); ++device) {
        const QRect& entry = legend[static_cast<std::size_t>(device)];
        const int swatch = entry.height() - 4;
        painter.fillRect(QRect(entry.left(), entry.top() + 2, swatch, swatch), segmentColor(device));
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(entry.adjusted(swatch + 4, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                         legendText(device));
    }
    painter.setPen(QPen(palette().color(QPalette::Mid), 1));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar);
    for (int handle = 0; handle < handleCount(); ++handle) {
        const QPoint centre = handleCentre(handle);
        const QRectF grip(centre.x() - kHandleWidth / 2.0, bar.top(), kHandleWidth, bar.height());
        const bool focused = hasFocus() && handle == m_focusedHandle;
        painter.setPen(QPen(focused ? palette().color(QPalette::Highlight) : palette().color(QPalette::Dark),
                            focused ? 2 : 1));
        painter.setBrush(palette().color(QPalette::Button));
        painter.drawRoundedRect(grip, 2, 2);
    }
}

} // namespace llamafit
