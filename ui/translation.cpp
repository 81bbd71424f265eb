// Loading the compiled translations; see translation.h.
#include "ui/translation.h"

#include <QCoreApplication>
#include <QDir>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

namespace llamafit {

namespace {

QString qmPath(const QString& language) {
    return QStringLiteral(":/i18n/llamafit_%1.qm").arg(language);
}

} // namespace

QStringList availableLanguages() {
    QStringList languages{QStringLiteral("en")};
    for (const QString& file : QDir(QStringLiteral(":/i18n")).entryList({QStringLiteral("llamafit_*.qm")})) {
        languages << file.mid(9, file.size() - 9 - 3);
    }
    return languages;
}

QString installTranslation(const QString& language) {
    QString chosen = language;
    if (chosen.isEmpty()) {
        const QStringList system = QLocale::system().uiLanguages();
        chosen = system.isEmpty() ? QStringLiteral("en") : system.first().left(2);
    }
    if (chosen == QLatin1String("en")) {
        return chosen;
    }
    // Parented to the application: they live as long as it does.
    auto* app = new QTranslator(QCoreApplication::instance());
    if (!app->load(qmPath(chosen))) {
        delete app;
        return QStringLiteral("en");
    }
    QCoreApplication::installTranslator(app);
    auto* qt = new QTranslator(QCoreApplication::instance());
    if (qt->load(QLocale(chosen), QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt);
    } else {
        delete qt;
    }
    return chosen;
}

} // namespace llamafit
