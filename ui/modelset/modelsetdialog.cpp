// The set view; see modelsetdialog.h.
#include "ui/modelset/modelsetdialog.h"

#include "core/common/atomicfile.h"
#include "core/machine/machineprofile.h"
#include "core/modelset/modelsetexport.h"
#include "core/modelset/modelsetfile.h"
#include "ui/chartstyle.h"
#include "ui/modelset/modelsetchart.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace llamafit {

namespace {

QTableWidget* makeTable(QWidget* parent, const QString& objectName, const QStringList& headers) {
    auto* table = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    table->setObjectName(objectName);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->verticalHeader()->setVisible(false);
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

QTableWidgetItem* verdictItem(FitVerdict verdict) {
    auto* item = new QTableWidgetItem(verdictLabel(verdict));
    item->setForeground(verdictColor(verdict));
    return item;
}

} // namespace

ModelSetDialog::ModelSetDialog(Machine machine, std::uint64_t marginBytes, QWidget* parent)
    : QDialog(parent), m_sessionMachine(std::move(machine)), m_marginBytes(marginBytes),
      m_openButton(new QPushButton(tr("Open set file..."), this)), m_fileLabel(new QLabel(this)),
      m_machineLabel(new QLabel(this)), m_statusLabel(new QLabel(this)), m_chart(new ModelSetChart(this)),
      m_modelsTable(
          makeTable(this, QStringLiteral("setModelsTable"), {tr("Model"), tr("Alone"), tr("Flags")})),
      m_subsetsTable(makeTable(this, QStringLiteral("setSubsetsTable"), {tr("Together"), tr("Verdict")})),
      m_summaryLabel(new QLabel(this)),
      m_exportIniButton(new QPushButton(tr("Save router preset (INI)..."), this)),
      m_exportSwapButton(new QPushButton(tr("Save llama-swap config..."), this)) {
    setObjectName(QStringLiteral("modelSetDialog"));
    setWindowTitle(tr("Model set"));
    m_openButton->setObjectName(QStringLiteral("setOpenButton"));
    m_fileLabel->setObjectName(QStringLiteral("setFileLabel"));
    m_machineLabel->setObjectName(QStringLiteral("setMachineLabel"));
    m_statusLabel->setObjectName(QStringLiteral("setStatusLabel"));
    m_statusLabel->setWordWrap(true);
    m_chart->setObjectName(QStringLiteral("setChart"));
    m_summaryLabel->setObjectName(QStringLiteral("setSummaryLabel"));
    m_summaryLabel->setWordWrap(true);
    m_summaryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_exportIniButton->setObjectName(QStringLiteral("setExportIniButton"));
    m_exportSwapButton->setObjectName(QStringLiteral("setExportSwapButton"));
    m_fileLabel->setText(tr("No set open. A set file lists models, each with its llama-server flags "
                            "(see docs/cli.md, 'plan --set')."));
    m_fileLabel->setWordWrap(true);

    auto* top = new QHBoxLayout;
    top->addWidget(m_openButton);
    top->addWidget(m_fileLabel, 1);
    auto* tables = new QSplitter(Qt::Vertical, this);
    tables->addWidget(m_modelsTable);
    tables->addWidget(m_subsetsTable);
    auto* middle = new QSplitter(Qt::Horizontal, this);
    middle->addWidget(m_chart);
    middle->addWidget(tables);
    middle->setStretchFactor(0, 3);
    middle->setStretchFactor(1, 2);
    auto* exports = new QHBoxLayout;
    exports->addStretch(1);
    exports->addWidget(m_exportIniButton);
    exports->addWidget(m_exportSwapButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_machineLabel);
    layout->addWidget(middle, 1);
    layout->addWidget(m_summaryLabel);
    layout->addWidget(m_statusLabel);
    layout->addLayout(exports);
    resize(980, 620);

    connect(m_openButton, &QPushButton::clicked, this, &ModelSetDialog::chooseAndOpen);
    connect(m_exportIniButton, &QPushButton::clicked, this,
            [this] { chooseAndSave(ExportFormat::PresetIni); });
    connect(m_exportSwapButton, &QPushButton::clicked, this,
            [this] { chooseAndSave(ExportFormat::LlamaSwap); });
    showPlan();
}

bool ModelSetDialog::openSetFile(const QString& path) {
    const Result<ModelSetFile> file = loadModelSetFile(path.toStdString());
    if (!file) {
        setStatus(QString::fromStdString(file.error().message), true);
        return false;
    }
    Result<std::vector<LoadedSetMember>> members = loadSetMembers(*file);
    if (!members) {
        setStatus(QString::fromStdString(members.error().message), true);
        return false;
    }
    Machine machine = m_sessionMachine;
    if (file->machine) {
        Result<Machine> named = resolveMachine(*file->machine);
        if (!named) {
            setStatus(QString::fromStdString(named.error().message), true);
            return false;
        }
        machine = std::move(*named);
    }
    Result<ModelSetPlan> plan = planModelSet(setMembers(*members), machine, PlacementOptions{m_marginBytes});
    if (!plan) {
        setStatus(QString::fromStdString(plan.error().message), true);
        return false;
    }
    m_setName = file->name;
    m_machine = std::move(machine);
    m_members = std::move(*members);
    m_plan = std::move(*plan);
    m_fileLabel->setText(QFileInfo(path).fileName());
    m_fileLabel->setToolTip(path);
    m_machineLabel->setText(
        file->machine ? tr("Machine: %1 (named by the set)").arg(QString::fromStdString(m_machine.name))
                      : tr("Machine: %1 (the one the main window plans for)")
                            .arg(QString::fromStdString(m_machine.name)));
    setStatus({}, false);
    showPlan();
    return true;
}

Result<std::string> ModelSetDialog::exportText(ExportFormat format) const {
    if (!m_plan) {
        return makeError("modelset.bad-value", "no model set is open");
    }
    const SetExport set = makeSetExport(m_setName, m_machine, m_members, *m_plan);
    return format == ExportFormat::PresetIni ? exportSetPresetIni(set) : exportSetLlamaSwapYaml(set);
}

bool ModelSetDialog::saveExport(ExportFormat format, const QString& path) {
    const Result<std::string> text = exportText(format);
    if (!text) {
        setStatus(QString::fromStdString(text.error().message), true);
        return false;
    }
    const Result<bool> written = writeFileAtomically(path.toStdString(), *text);
    if (!written) {
        setStatus(QString::fromStdString(written.error().message), true);
        return false;
    }
    setStatus(tr("Saved %1.").arg(path), false);
    return true;
}

void ModelSetDialog::chooseAndOpen() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open model set"), {},
                                                      tr("Model sets (*.json);;All files (*)"));
    if (!path.isEmpty()) {
        openSetFile(path);
    }
}

void ModelSetDialog::chooseAndSave(ExportFormat format) {
    const bool ini = format == ExportFormat::PresetIni;
    const QString suggested =
        QString::fromStdString(m_setName) + (ini ? QStringLiteral(".ini") : QStringLiteral(".yaml"));
    const QString path = QFileDialog::getSaveFileName(
        this, ini ? tr("Save router preset") : tr("Save llama-swap config"), suggested,
        ini ? tr("Preset INI (*.ini)") : tr("llama-swap config (*.yaml *.yml)"));
    if (!path.isEmpty()) {
        saveExport(format, path);
    }
}

void ModelSetDialog::showPlan() {
    const bool open = m_plan.has_value();
    m_exportIniButton->setEnabled(open);
    m_exportSwapButton->setEnabled(open);
    m_chart->showPlan(open ? *m_plan : ModelSetPlan{});
    m_modelsTable->setRowCount(0);
    m_subsetsTable->setRowCount(0);
    if (!open) {
        m_summaryLabel->clear();
        return;
    }
    const ModelSetPlan& plan = *m_plan;
    m_modelsTable->setRowCount(static_cast<int>(plan.members.size()));
    for (std::size_t i = 0; i < plan.members.size(); ++i) {
        const int row = static_cast<int>(i);
        auto* name = new QTableWidgetItem(QString::fromStdString(plan.members[i].name));
        name->setForeground(seriesColor(i));
        name->setToolTip(QString::fromStdString(m_members[i].model.displayName));
        m_modelsTable->setItem(row, 0, name);
        m_modelsTable->setItem(row, 1, verdictItem(plan.members[i].usage.verdict));
        QString flags;
        for (const std::string& word : toServerArgs(m_members[i].args.settings)) {
            flags += (flags.isEmpty() ? QString() : QStringLiteral(" ")) + QString::fromStdString(word);
        }
        m_modelsTable->setItem(row, 2, new QTableWidgetItem(flags));
    }
    // Sets of two or more: a single model's verdict is in the models table already.
    for (const SubsetFit& subset : plan.subsets) {
        if (subset.members.size() < 2) {
            continue;
        }
        QString names;
        for (const std::size_t index : subset.members) {
            names += (names.isEmpty() ? QString() : QStringLiteral(" + ")) +
                     QString::fromStdString(plan.members[index].name);
        }
        const int row = m_subsetsTable->rowCount();
        m_subsetsTable->insertRow(row);
        m_subsetsTable->setItem(row, 0, new QTableWidgetItem(names));
        m_subsetsTable->setItem(row, 1, verdictItem(subset.verdict));
    }
    const std::size_t count = plan.members.size();
    QString summary = tr("All %1 together: %2. ").arg(count).arg(verdictLabel(plan.together.verdict));
    if (plan.safeModelsMax == 0) {
        summary += tr("Not every model fits alone: no --models-max is safe.");
    } else {
        summary += tr("Safe --models-max: %1 (every %1 of the %2 models fit together).")
                       .arg(plan.safeModelsMax)
                       .arg(count);
    }
    if (plan.loadableModelsMax > plan.safeModelsMax) {
        summary += tr(" Right after load any %1 fit: their prompt caches (--cache-ram) and checkpoints "
                      "may grow beyond the memory.")
                       .arg(plan.loadableModelsMax);
    }
    summary += QStringLiteral("\nllama-server --models-preset %1.ini --models-max %2")
                   .arg(QString::fromStdString(m_setName))
                   .arg(std::max<std::size_t>(1, plan.safeModelsMax));
    m_summaryLabel->setText(summary);
}

void ModelSetDialog::setStatus(const QString& text, bool problem) {
    m_statusLabel->setText(text);
    m_statusLabel->setStyleSheet(problem ? QStringLiteral("color: #c0392b;") : QString());
}

} // namespace llamafit
