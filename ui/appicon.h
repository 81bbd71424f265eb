#pragma once
// The window icon, painted with QPainter from the same shapes as resources/icons/llamafit.svg
// (the file desktops use through llamafit.desktop), so the app needs neither Qt SVG nor a
// bitmap next to it. Used by app/gui/main.cpp. Thread: GUI thread.

#include <QIcon>

namespace llamafit {

QIcon appIcon();

} // namespace llamafit
