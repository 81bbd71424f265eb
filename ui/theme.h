#pragma once
// Light and dark themes: the Fusion style with a light or dark palette, or the platform's own
// style and palette ("system"). Charts take their colours from the palette (chartstyle.h), so
// they follow. Used by app/gui/main.cpp and the View menu. Thread: GUI thread.

#include "ui/appsettings.h"

#include <QPalette>

namespace llamafit {

QPalette darkPalette();
QPalette lightPalette();
// Call after the QApplication exists; widgets get a PaletteChange event (charts re-style on it).
void applyTheme(ThemeChoice theme);

} // namespace llamafit
