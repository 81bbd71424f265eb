// The llama-bench dialog; see benchmarkdialog.h.
#include "ui/bench/benchmarkdialog.h"

#include "core/server/benchprediction.h"
#include "core/server/exports.h"
#include "core/system/benchmarkstore.h"
#include "ui/bench/benchmarkchart.h"
#include "ui/chartstyle.h"
#include "ui/sizingsession.h"

#include <QCloseEvent>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <charconv>

namespace llamafit {

namespace {

QSpinBox* spinBox(const QString& objectName, int minimum, int maximum, int value, const QString& toolTip) {
    auto* spin = new QSpinBox;
    spin->setObjectName(objectName);
    spin->setRange(minimum, maximum);
    spin->setValue(value);
    spin->setToolTip(toolTip);
    return spin;
}

// -t / --threads among the extra flags: the launch will use it, so the benchmark does too.
int threadsFromExtraArgs(const std::vector<std::string>& words) {
    for (std::size_t i = 0; i + 1 < words.size(); ++i) {
        if (words[i] == "-t" || words[i] == "--threads") {
            int threads = 0;
            const std::string& text = words[i + 1];
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), threads);
            if (ec == std::errc() && end == text.data() + text.size() && threads > 0) {
                return threads;
            }
        }
    }
    return 0;
}

QTableWidgetItem* numberItem(double value, int decimals) {
    auto* item =
        new QTableWidgetItem(value > 0 ? QString::number(value, 'f', decimals) : QStringLiteral("—"));
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

BenchmarkDialog::BenchmarkDialog(SizingSession* session, const QString& serverProgram,
                                 const QString& storeFolder, QWidget* parent)
    : QDialog(parent), m_session(session), m_storeFolder(storeFolder) {
    setObjectName(QStringLiteral("benchmarkDialog"));
    setWindowTitle(tr("Benchmark with llama-bench"));
    const BenchRequest defaults;
    m_depthsEdit = new QLineEdit(QStringLiteral("0"));
    m_depthsEdit->setObjectName(QStringLiteral("benchDepthsEdit"));
    m_depthsEdit->setToolTip(tr("KV cells filled before each test (llama-bench -d), separated by commas: "
                                "\"0,4096,32768\" shows how speed falls as the context fills"));
    m_promptSpin =
        spinBox(QStringLiteral("benchPromptSpin"), 0, 65536, static_cast<int>(defaults.promptTokens),
                tr("Prompt tokens per prompt-processing test (-p; 0 = no pp test)"));
    m_generationSpin =
        spinBox(QStringLiteral("benchGenerationSpin"), 0, 65536, static_cast<int>(defaults.generatedTokens),
                tr("Tokens generated per generation test (-n; 0 = no tg test)"));
    m_repetitionsSpin = spinBox(QStringLiteral("benchRepetitionsSpin"), 1, 100,
                                static_cast<int>(defaults.repetitions), tr("Repetitions of each test (-r)"));
    m_threadsSpin =
        spinBox(QStringLiteral("benchThreadsSpin"), 0, 1024, threadsFromExtraArgs(session->extraArgs()),
                tr("CPU threads (-t); 0 = llama-bench's default"));
    m_threadsSpin->setSpecialValueText(tr("default"));
    m_programEdit = new QLineEdit(defaultLlamaBenchProgram(serverProgram));
    m_programEdit->setObjectName(QStringLiteral("benchProgramEdit"));
    m_programEdit->setToolTip(tr("The llama-bench program (it ships next to llama-server)"));
    m_commandLabel = new QLabel;
    m_commandLabel->setObjectName(QStringLiteral("benchCommandLabel"));
    m_commandLabel->setWordWrap(true);
    m_commandLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout;
    form->addRow(tr("Depths"), m_depthsEdit);
    form->addRow(tr("Prompt tokens"), m_promptSpin);
    form->addRow(tr("Generated tokens"), m_generationSpin);
    form->addRow(tr("Repetitions"), m_repetitionsSpin);
    form->addRow(tr("Threads"), m_threadsSpin);
    form->addRow(tr("llama-bench"), m_programEdit);
    form->addRow(tr("Command"), m_commandLabel);

    m_runButton = new QPushButton(tr("Run"));
    m_runButton->setObjectName(QStringLiteral("benchRunButton"));
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setObjectName(QStringLiteral("benchCancelButton"));
    m_cancelButton->setEnabled(false);
    m_progressBar = new QProgressBar;
    m_progressBar->setObjectName(QStringLiteral("benchProgressBar"));
    m_progressBar->setRange(0, 1);
    m_progressBar->setValue(0);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton);
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_progressBar, 1);
    m_statusLabel = new QLabel;
    m_statusLabel->setObjectName(QStringLiteral("benchStatusLabel"));
    m_statusLabel->setWordWrap(true);

    m_historyCombo = new QComboBox;
    m_historyCombo->setObjectName(QStringLiteral("benchHistoryCombo"));
    m_historyCombo->setToolTip(tr("Runs of this model file on this machine stored earlier"));
    auto* history = new QHBoxLayout;
    history->addWidget(new QLabel(tr("Run shown")));
    history->addWidget(m_historyCombo, 1);

    m_table = new QTableWidget(0, 6);
    m_table->setObjectName(QStringLiteral("benchResultsTable"));
    m_table->setHorizontalHeaderLabels({tr("Test"), tr("Measured t/s"), tr("±"), tr("Bound t/s"),
                                        tr("Expected t/s"), tr("Expected vs measured")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_sourceLabel = new QLabel;
    m_sourceLabel->setObjectName(QStringLiteral("benchSourceLabel"));
    m_sourceLabel->setWordWrap(true);
    m_chart = new BenchmarkChart;
    m_chart->setObjectName(QStringLiteral("benchChart"));

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_statusLabel);
    layout->addLayout(history);
    layout->addWidget(m_table);
    layout->addWidget(m_sourceLabel);
    layout->addWidget(m_chart, 1);

    connect(m_runButton, &QPushButton::clicked, this, &BenchmarkDialog::startBenchmark);
    connect(m_cancelButton, &QPushButton::clicked, &m_run, &BenchmarkRun::cancel);
    connect(&m_run, &BenchmarkRun::stateChanged, this, &BenchmarkDialog::onStateChanged);
    connect(&m_run, &BenchmarkRun::progressed, this, &BenchmarkDialog::onProgressed);
    connect(m_historyCombo, &QComboBox::activated, this, [this](int index) {
        if (index >= 0 && static_cast<std::size_t>(index) < m_history.size()) {
            showRecord(m_history[static_cast<std::size_t>(index)]);
        }
    });
    for (QSpinBox* spin : {m_promptSpin, m_generationSpin, m_repetitionsSpin, m_threadsSpin}) {
        connect(spin, &QSpinBox::valueChanged, this, &BenchmarkDialog::refreshCommand);
    }
    connect(m_depthsEdit, &QLineEdit::textChanged, this, &BenchmarkDialog::refreshCommand);
    connect(m_programEdit, &QLineEdit::textChanged, this, &BenchmarkDialog::refreshCommand);
    connect(session, &SizingSession::settingsChanged, this, &BenchmarkDialog::refreshCommand);
    connect(session, &SizingSession::modelChanged, this, [this] {
        refreshCommand();
        reloadHistory();
    });
    connect(session, &SizingSession::machineChanged, this, &BenchmarkDialog::reloadHistory);
    refreshCommand();
    reloadHistory();
    resize(760, 820);
}

BenchmarkDialog::~BenchmarkDialog() = default; // ~BenchmarkRun reaps a llama-bench still running

Result<BenchRequest> BenchmarkDialog::currentRequest() const {
    BenchRequest request;
    request.modelPath = m_session->model().path;
    if (request.modelPath.empty()) {
        return makeError("bench.bad-request",
                         tr("'%1' is a built-in card: open its GGUF file to benchmark it")
                             .arg(QString::fromStdString(m_session->model().displayName))
                             .toStdString());
    }
    request.settings = m_session->settings();
    Result<std::vector<std::uint32_t>> depths = parseBenchDepths(m_depthsEdit->text().toStdString());
    if (!depths) {
        return depths.error();
    }
    request.depths = std::move(*depths);
    request.promptTokens = static_cast<std::uint32_t>(m_promptSpin->value());
    request.generatedTokens = static_cast<std::uint32_t>(m_generationSpin->value());
    request.repetitions = static_cast<std::uint32_t>(m_repetitionsSpin->value());
    if (m_threadsSpin->value() > 0) {
        request.threads = static_cast<std::uint32_t>(m_threadsSpin->value());
    }
    return request;
}

void BenchmarkDialog::refreshCommand() {
    const bool idle =
        m_run.state() != BenchmarkRun::State::Running && m_run.state() != BenchmarkRun::State::Cancelling;
    const Result<BenchRequest> request = currentRequest();
    Result<std::vector<std::string>> args = request ? buildBenchArgs(*request) : request.error();
    if (!args) {
        m_commandLabel->setText(QString::fromStdString(args.error().message));
        m_runButton->setEnabled(false);
        return;
    }
    QStringList words{QString::fromStdString(quotePosixArgument(m_programEdit->text().toStdString()))};
    for (const std::string& arg : *args) {
        words.push_back(QString::fromStdString(quotePosixArgument(arg)));
    }
    m_commandLabel->setText(words.join(u' '));
    m_runButton->setEnabled(idle);
}

bool BenchmarkDialog::startBenchmark() {
    Result<BenchRequest> request = currentRequest();
    if (!request) {
        setStatus(QString::fromStdString(request.error().message), true);
        return false;
    }
    Machine machine = m_session->machine();
    machine.bandwidthBytesPerSecond = m_session->bandwidthBytesPerSecond();
    Result<BenchPlan> plan = planBench(std::move(*request), std::move(machine), m_session->model().info,
                                       BenchmarkStore(m_storeFolder));
    if (!plan) {
        setStatus(QString::fromStdString(plan.error().message), true);
        return false;
    }
    m_plan = std::move(*plan);
    m_progressBar->setRange(0, static_cast<int>(benchTestCount(m_plan->request)));
    m_progressBar->setValue(0);
    m_run.start(m_programEdit->text(), m_plan->request);
    return m_run.state() == BenchmarkRun::State::Running;
}

void BenchmarkDialog::onProgressed(std::uint32_t test, std::uint32_t total, const QString& stage) {
    m_progressBar->setRange(0, static_cast<int>(total));
    m_progressBar->setValue(static_cast<int>(test > 0 ? test - 1 : 0));
    setStatus(tr("Test %1 of %2: %3").arg(test).arg(total).arg(stage), false);
}

void BenchmarkDialog::onStateChanged(BenchmarkRun::State state) {
    const bool busy = state == BenchmarkRun::State::Running || state == BenchmarkRun::State::Cancelling;
    m_cancelButton->setEnabled(state == BenchmarkRun::State::Running);
    refreshCommand();
    switch (state) {
    case BenchmarkRun::State::Running:
        setStatus(tr("Starting llama-bench..."), false);
        break;
    case BenchmarkRun::State::Cancelling:
        setStatus(tr("Cancelling..."), false);
        break;
    case BenchmarkRun::State::Cancelled:
        setStatus(tr("Cancelled: llama-bench was stopped and nothing was stored."), false);
        break;
    case BenchmarkRun::State::Failed:
        setStatus(tr("llama-bench failed: %1").arg(QString::fromStdString(m_run.error().message)), true);
        break;
    case BenchmarkRun::State::Finished: {
        m_progressBar->setValue(m_progressBar->maximum());
        const BenchRecord record = benchRecordOf(*m_plan, m_run);
        const Result<QString> stored = BenchmarkStore(m_storeFolder).append(record);
        setStatus(
            stored ? tr("Finished; stored in %1").arg(*stored)
                   : tr("Finished, but not stored: %1").arg(QString::fromStdString(stored.error().message)),
            !stored);
        showRecord(record);
        reloadHistory(); // lists the new run, selected; the run shown stays this one
        break;
    }
    case BenchmarkRun::State::Idle:
        break;
    }
    if (!busy) {
        m_plan.reset();
    }
}

void BenchmarkDialog::reloadHistory() {
    std::vector<std::string> problems;
    const std::string modelPath =
        QFileInfo(QString::fromStdString(m_session->model().path)).absoluteFilePath().toStdString();
    m_history.clear();
    m_historyCombo->clear();
    if (m_session->model().path.empty()) {
        return;
    }
    for (BenchRecord& record :
         BenchmarkStore(m_storeFolder).loadMachine(m_session->machine().id, &problems)) {
        if (record.modelPath == modelPath) {
            m_historyCombo->addItem(tr("%1 · build %2 · %3 tests")
                                        .arg(QString::fromStdString(record.startedAt))
                                        .arg(record.buildNumber)
                                        .arg(record.rows.size()));
            m_history.push_back(std::move(record));
        }
    }
    if (!problems.empty()) {
        setStatus(tr("Some stored runs could not be read: %1").arg(QString::fromStdString(problems.front())),
                  true);
    }
    m_historyCombo->setCurrentIndex(static_cast<int>(m_history.size()) - 1);
    if (!m_shown && !m_history.empty()) {
        showRecord(m_history.back());
    }
}

void BenchmarkDialog::showRecord(const BenchRecord& record) {
    m_shown = record;
    m_table->setRowCount(static_cast<int>(record.rows.size()));
    for (std::size_t i = 0; i < record.rows.size(); ++i) {
        const BenchRow& row = record.rows[i];
        const BenchRowComparison comparison = compareBenchRow(
            row, i < record.predictions.size() ? record.predictions[i] : BenchRowPrediction{});
        const int r = static_cast<int>(i);
        m_table->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(row.testName())));
        m_table->setItem(r, 1, numberItem(comparison.measuredTps, 2));
        m_table->setItem(r, 2, numberItem(comparison.stddevTps, 2));
        m_table->setItem(r, 3, numberItem(comparison.boundTps, 1));
        m_table->setItem(r, 4, numberItem(comparison.expectedTps, 1));
        auto* error = new QTableWidgetItem(
            comparison.expectedError ? QStringLiteral("%1 %").arg(100 * *comparison.expectedError, 0, 'f', 1)
                                     : QStringLiteral("—"));
        error->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(r, 5, error);
    }
    QString source = tr("llama.cpp build %1 · predicted with %2")
                         .arg(record.buildNumber)
                         .arg(QString::fromStdString(record.efficiencySource));
    const bool promptPredicted =
        std::any_of(record.predictions.begin(), record.predictions.end(),
                    [](const BenchRowPrediction& p) { return p.promptTpsExpected > 0.0; });
    const bool promptMeasured = std::any_of(record.rows.begin(), record.rows.end(),
                                            [](const BenchRow& row) { return row.isPrompt(); });
    if (promptMeasured && !promptPredicted) {
        source += tr(" · prompt rates are not predicted: the machine profile has no FP16 TFLOPS figure");
    }
    m_sourceLabel->setText(source);
    m_chart->showRecord(record);
    emit recordShown();
}

void BenchmarkDialog::setStatus(const QString& text, bool problem) {
    m_statusLabel->setText(text);
    QPalette colors = palette();
    if (problem) {
        colors.setColor(QPalette::WindowText, verdictColor(FitVerdict::DoesNotFit));
    }
    m_statusLabel->setPalette(colors);
}

void BenchmarkDialog::closeEvent(QCloseEvent* event) {
    // A closed dialog leaves no benchmark running behind the user's back.
    if (m_run.state() == BenchmarkRun::State::Running) {
        m_run.cancel();
    }
    QDialog::closeEvent(event);
}

} // namespace llamafit
