// The live view's log panel; see logpanel.h.
#include "ui/live/logpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>

namespace llamafit {

namespace {

// Highlighting every match of a very common word in 20000 lines would cost more than it
// helps; the jump (Enter) still reaches every match.
constexpr int kMaximumHighlights = 2000;

} // namespace

LogPanel::LogPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("logPanel"));

    m_levelCombo = new QComboBox(this);
    m_levelCombo->setObjectName(QStringLiteral("logLevelCombo"));
    m_levelCombo->addItem(tr("All levels"), static_cast<int>(LogLevel::Debug));
    m_levelCombo->addItem(tr("Info and above"), static_cast<int>(LogLevel::Info));
    m_levelCombo->addItem(tr("Warnings and errors"), static_cast<int>(LogLevel::Warning));
    m_levelCombo->addItem(tr("Errors only"), static_cast<int>(LogLevel::Error));
    m_levelCombo->setToolTip(tr("Show only log lines at or above this level (the I/W/E/D letter llama-server "
                                "prints after the time; more lines with -lv / --verbosity)"));

    m_searchEdit = new QLineEdit(this);
    m_searchEdit->setObjectName(QStringLiteral("logSearchEdit"));
    m_searchEdit->setPlaceholderText(tr("Search the log"));
    m_searchEdit->setClearButtonEnabled(true);
    m_searchEdit->setToolTip(tr("Highlights every match in the log; Enter jumps to the next one"));

    m_matchesOnlyCheck = new QCheckBox(tr("Matching lines only"), this);
    m_matchesOnlyCheck->setObjectName(QStringLiteral("logMatchesOnlyCheck"));
    m_matchesOnlyCheck->setToolTip(tr("Hide the log lines that do not contain the search text"));

    m_view = new QPlainTextEdit(this);
    m_view->setObjectName(QStringLiteral("logView"));
    m_view->setReadOnly(true);
    m_view->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_view->setMaximumBlockCount(m_maximumLines);
    m_view->setFont(QFont(QStringLiteral("monospace")));
    m_view->setToolTip(tr("llama-server's output (stdout and stderr), newest at the bottom"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_levelCombo);
    controls->addWidget(m_searchEdit, 1);
    controls->addWidget(m_matchesOnlyCheck);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_view, 1);

    connect(m_levelCombo, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
    connect(m_matchesOnlyCheck, &QCheckBox::toggled, this, [this] { rebuild(); });
    connect(m_searchEdit, &QLineEdit::textChanged, this, [this] {
        if (m_matchesOnlyCheck->isChecked()) {
            rebuild();
        } else {
            updateHighlights();
        }
    });
    connect(m_searchEdit, &QLineEdit::returnPressed, this, [this] { findNext(); });
}

void LogPanel::appendLines(const QStringList& lines) {
    QStringList shown;
    for (const QString& text : lines) {
        Line line{text, m_classifier.classify(text)};
        if (passes(line)) {
            shown.append(text);
        }
        m_lines.push_back(std::move(line));
    }
    while (m_lines.size() > static_cast<std::size_t>(m_maximumLines)) {
        m_lines.pop_front();
    }
    if (shown.isEmpty()) {
        return;
    }
    // One insertion per batch; the view drops its oldest blocks beyond maximumBlockCount.
    m_view->appendPlainText(shown.join(QLatin1Char('\n')));
    if (!m_searchEdit->text().isEmpty()) {
        updateHighlights();
    }
}

void LogPanel::clear() {
    m_lines.clear();
    m_classifier.reset();
    m_view->clear();
}

void LogPanel::setMaximumLines(int lines) {
    m_maximumLines = std::max(lines, 1);
    while (m_lines.size() > static_cast<std::size_t>(m_maximumLines)) {
        m_lines.pop_front();
    }
    m_view->setMaximumBlockCount(m_maximumLines);
}

void LogPanel::setMinimumLevel(LogLevel level) {
    const int index = m_levelCombo->findData(static_cast<int>(level));
    if (index >= 0) {
        m_levelCombo->setCurrentIndex(index);
    }
}

LogLevel LogPanel::minimumLevel() const {
    return static_cast<LogLevel>(m_levelCombo->currentData().toInt());
}

bool LogPanel::passes(const Line& line) const {
    if (line.level < minimumLevel()) {
        return false;
    }
    const QString search = m_searchEdit->text();
    return !m_matchesOnlyCheck->isChecked() || search.isEmpty() ||
           line.text.contains(search, Qt::CaseInsensitive);
}

void LogPanel::rebuild() {
    QStringList shown;
    for (const Line& line : m_lines) {
        if (passes(line)) {
            shown.append(line.text);
        }
    }
    m_view->setPlainText(shown.join(QLatin1Char('\n')));
    m_view->moveCursor(QTextCursor::End);
    updateHighlights();
}

void LogPanel::updateHighlights() {
    QList<QTextEdit::ExtraSelection> selections;
    const QString search = m_searchEdit->text();
    if (!search.isEmpty()) {
        QColor background = palette().color(QPalette::Highlight);
        background.setAlpha(90);
        QTextCursor cursor(m_view->document());
        while (selections.size() < kMaximumHighlights) {
            cursor = m_view->document()->find(search, cursor);
            if (cursor.isNull()) {
                break;
            }
            QTextEdit::ExtraSelection selection;
            selection.cursor = cursor;
            selection.format.setBackground(background);
            selections.append(selection);
        }
    }
    m_view->setExtraSelections(selections);
}

bool LogPanel::findNext() {
    const QString search = m_searchEdit->text();
    if (search.isEmpty()) {
        return false;
    }
    if (m_view->find(search)) {
        return true;
    }
    // Past the last match: wrap to the top.
    QTextCursor start = m_view->textCursor();
    start.movePosition(QTextCursor::Start);
    m_view->setTextCursor(start);
    return m_view->find(search);
}

int LogPanel::shownLineCount() const {
    return m_view->document()->isEmpty() ? 0 : m_view->document()->blockCount();
}

int LogPanel::highlightCount() const {
    return static_cast<int>(m_view->extraSelections().size());
}

QString LogPanel::shownText() const {
    return m_view->toPlainText();
}

int LogPanel::currentMatchLine() const {
    const QTextCursor cursor = m_view->textCursor();
    return cursor.hasSelection() ? cursor.block().blockNumber() : -1;
}

} // namespace llamafit
