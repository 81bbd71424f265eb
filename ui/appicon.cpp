// The app icon at the usual sizes; see appicon.h. Coordinates follow llamafit.svg's 256 grid.
#include "ui/appicon.h"

#include <QPainter>
#include <QPixmap>

namespace llamafit {

namespace {

QPixmap paintIcon(int size) {
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.scale(size / 256.0, size / 256.0);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0x1f, 0x2d, 0x3d));
    painter.drawRoundedRect(QRectF(8, 8, 240, 240), 44, 44);
    const struct {
        QRectF rect;
        QColor color;
    } segments[] = {
        {QRectF(76, 148, 104, 72), QColor(0x4e, 0x79, 0xa7)}, // weights
        {QRectF(76, 104, 104, 40), QColor(0xf2, 0x8e, 0x2b)}, // KV cache
        {QRectF(76, 76, 104, 24), QColor(0x59, 0xa1, 0x4f)},  // recurrent state
    };
    for (const auto& segment : segments) {
        painter.setBrush(segment.color);
        painter.drawRoundedRect(segment.rect, 6, 6);
    }
    QPen limit(QColor(0xe6, 0xe6, 0xe6), 10, Qt::CustomDashLine, Qt::RoundCap);
    limit.setDashPattern({2.2, 1.4});
    painter.setPen(limit);
    painter.drawLine(QPointF(44, 56), QPointF(212, 56));
    return pixmap;
}

} // namespace

QIcon appIcon() {
    QIcon icon;
    for (int size : {16, 24, 32, 48, 64, 128, 256}) {
        icon.addPixmap(paintIcon(size));
    }
    return icon;
}

} // namespace llamafit
