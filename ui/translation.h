#pragma once
// Installs the app's translation (English source text; Japanese from
// resources/translations/llamafit_ja.ts, compiled by lrelease into the binary under :/i18n),
// and Qt's own translation of its standard dialogs when the system has it.
// Used by app/gui/main.cpp. Thread: GUI thread, before widgets are created.

#include <QString>
#include <QStringList>

namespace llamafit {

// "ja" or "en"; empty = the system locale's first UI language. Returns the language in effect
// ("en" when no translation matched: the source text is English).
QString installTranslation(const QString& language);

// Languages with a compiled translation, plus "en".
QStringList availableLanguages();

} // namespace llamafit
