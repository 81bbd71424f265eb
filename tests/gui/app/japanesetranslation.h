#pragma once
// JapaneseTranslation: the app's Japanese translation installed for one test and removed after it
// (exactly the translators installTranslation created, children of the application), so the other
// tests stay English. Used by the translation and layout tests. Test code; GUI thread.

#include "ui/translation.h"

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QTranslator>

#include <utility>

namespace llamafit {

class JapaneseTranslation {
  public:
    JapaneseTranslation() {
        const QList<QTranslator*> before = QCoreApplication::instance()->findChildren<QTranslator*>();
        m_language = installTranslation(QStringLiteral("ja"));
        for (QTranslator* translator : QCoreApplication::instance()->findChildren<QTranslator*>()) {
            if (!before.contains(translator)) {
                m_installed << translator;
            }
        }
    }
    ~JapaneseTranslation() { remove(); }
    JapaneseTranslation(const JapaneseTranslation&) = delete;
    JapaneseTranslation& operator=(const JapaneseTranslation&) = delete;

    QString language() const { return m_language; }
    qsizetype installedCount() const { return m_installed.size(); }
    void remove() {
        for (QTranslator* translator : std::as_const(m_installed)) {
            QCoreApplication::removeTranslator(translator);
            delete translator;
        }
        m_installed.clear();
    }

  private:
    QString m_language;
    QList<QTranslator*> m_installed;
};

} // namespace llamafit
