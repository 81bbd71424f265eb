#pragma once
// Argument words between the Qt-free core (std::vector<std::string>, UTF-8) and Qt
// (QStringList): the launcher hands argv to QProcess, the GUI keeps flags in QSettings.
// Header-only, any thread.

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace llamafit {

inline QStringList toQStringList(const std::vector<std::string>& words) {
    QStringList list;
    list.reserve(static_cast<qsizetype>(words.size()));
    for (const std::string& word : words) {
        list << QString::fromStdString(word);
    }
    return list;
}

inline std::vector<std::string> toStdStrings(const QStringList& list) {
    std::vector<std::string> words;
    words.reserve(static_cast<std::size_t>(list.size()));
    for (const QString& word : list) {
        words.push_back(word.toStdString());
    }
    return words;
}

} // namespace llamafit
