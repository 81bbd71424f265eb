#pragma once
// LogPanel: the live view's llama-server log: a read-only text view ("logView") holding the
// last lines of the log, a level filter ("logLevelCombo": all / info and above / warnings
// and above / errors), a search field ("logSearchEdit": every match highlighted, Enter jumps
// to the next one, wrapping) and a "matching lines only" switch ("logMatchesOnlyCheck").
// Used by LiveView, which hands it the lines it batched since its last refresh tick, so the
// text view grows once per tick, not once per line.
// Owns: its widgets and the last maximumLines() lines with their levels.
// Thread: GUI thread. Units: lines.

#include "ui/live/loglevelclassifier.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <cstddef>
#include <deque>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;

namespace llamafit {

class LogPanel : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kDefaultMaximumLines = 20000;

    explicit LogPanel(QWidget* parent = nullptr);

    // Appends lines in log order (one text-view update for the whole batch).
    void appendLines(const QStringList& lines);
    void clear();
    // Older lines are dropped beyond this many (held and shown).
    void setMaximumLines(int lines);
    int maximumLines() const { return m_maximumLines; }

    // The least severe level shown (the combo box's choice).
    void setMinimumLevel(LogLevel level);
    LogLevel minimumLevel() const;
    // Moves the text cursor to the next match of the search text after it (wrapping); false
    // when the shown text has no match.
    bool findNext();

    // For tests and the status line.
    int heldLineCount() const { return static_cast<int>(m_lines.size()); }
    int shownLineCount() const; // lines in the text view (filtered)
    int highlightCount() const; // matches of the search text highlighted in the view
    QString shownText() const;
    // The line the last findNext() selected (block number in the view), -1 if none.
    int currentMatchLine() const;

  private:
    struct Line {
        QString text;
        LogLevel level = LogLevel::Info;
    };
    bool passes(const Line& line) const;
    void rebuild();
    void updateHighlights();

    QComboBox* m_levelCombo = nullptr;
    QLineEdit* m_searchEdit = nullptr;
    QCheckBox* m_matchesOnlyCheck = nullptr;
    QPlainTextEdit* m_view = nullptr;
    std::deque<Line> m_lines;
    LogLevelClassifier m_classifier;
    int m_maximumLines = kDefaultMaximumLines;
};

} // namespace llamafit
