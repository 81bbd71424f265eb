// Machine, BIOS split and margin; see machinepanel.h.
#include "ui/machinepanel.h"

#include "core/common/units.h"
#include "core/machine/backendreport.h"
#include "core/machine/biossplitadvisor.h"
#include "core/machine/machineprofile.h"
#include "ui/chartstyle.h"
#include "ui/sizingsession.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>

namespace llamafit {

MachinePanel::MachinePanel(SizingSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_machineCombo(new QComboBox(this)),
      m_carveOutCombo(new QComboBox(this)), m_carveOutLabel(new QLabel(tr("BIOS VRAM split"), this)),
      m_adviceLabel(new QLabel(this)), m_marginSpin(new QSpinBox(this)), m_summaryLabel(new QLabel(this)) {
    m_machineCombo->setObjectName(QStringLiteral("machineCombo"));
    // Profile names are long ("GMKtec EVO-X2 — Ryzen AI Max+ 395, 64 GB, BIOS 32/32"): the
    // combo elides them instead of widening the dock.
    m_machineCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_machineCombo->setMinimumContentsLength(18);
    m_machineCombo->setToolTip(tr("The machine the plan is for: a built-in profile, or this machine as "
                                  "Vulkan, sysfs and /proc report it"));
    m_carveOutCombo->setObjectName(QStringLiteral("carveOutCombo"));
    m_carveOutCombo->setToolTip(tr("The dedicated VRAM the BIOS carves out of an APU's memory "
                                   "(UMA frame buffer size); the rest is the system RAM the OS sees"));
    m_adviceLabel->setObjectName(QStringLiteral("biosAdviceLabel"));
    m_adviceLabel->setWordWrap(true);
    m_marginSpin->setObjectName(QStringLiteral("marginSpin"));
    m_marginSpin->setRange(0, 16384);
    m_marginSpin->setSingleStep(256);
    m_marginSpin->setSuffix(tr(" MiB"));
    m_marginSpin->setValue(static_cast<int>(session->marginBytes() / kMiB));
    m_marginSpin->setToolTip(tr("Memory kept free in every pool; llama-server's --fit-target default is "
                                "1024 MiB. A configuration inside this margin is shown as tight."));
    m_summaryLabel->setObjectName(QStringLiteral("machineSummaryLabel"));
    m_summaryLabel->setWordWrap(true);

    auto* form = new QFormLayout(this);
    form->addRow(tr("Machine"), m_machineCombo);
    form->addRow(m_carveOutLabel, m_carveOutCombo);
    form->addRow(QString(), m_adviceLabel);
    form->addRow(tr("Safety margin"), m_marginSpin);
    form->addRow(m_summaryLabel);

    for (const Machine& machine : builtinMachines()) {
        m_machines.push_back(machine);
        m_machineCombo->addItem(QString::fromStdString(machine.name), QString::fromStdString(machine.id));
    }
    const int current = m_machineCombo->findData(QString::fromStdString(session->machine().id));
    if (current < 0) {
        m_machines.push_back(session->machine());
        m_machineCombo->addItem(QString::fromStdString(session->machine().name),
                                QString::fromStdString(session->machine().id));
    }
    m_machineCombo->setCurrentIndex(current >= 0 ? current : m_machineCombo->count() - 1);

    connect(m_machineCombo, &QComboBox::currentIndexChanged, this, &MachinePanel::onMachineChosen);
    connect(m_carveOutCombo, &QComboBox::currentIndexChanged, this, &MachinePanel::onCarveOutChosen);
    connect(m_marginSpin, &QSpinBox::valueChanged, this,
            [this](int mib) { m_session->setMarginBytes(static_cast<std::uint64_t>(mib) * kMiB); });
    connect(session, &SizingSession::estimateChanged, this, &MachinePanel::refreshAdvice);
    refreshCarveOuts();
    refreshAdvice();
}

void MachinePanel::setDetectedMachine(const Machine& machine, bool select) {
    Machine detected = machine;
    detected.id = "detected";
    if (detected.name.empty()) {
        detected.name = "This machine";
    }
    const QString label = tr("This machine (detected): %1").arg(QString::fromStdString(machine.name));
    int index = m_machineCombo->findData(QStringLiteral("detected"));
    if (index < 0) {
        m_machines.push_back(detected);
        m_machineCombo->addItem(label, QStringLiteral("detected"));
        index = m_machineCombo->count() - 1;
    } else {
        m_machines[static_cast<std::size_t>(index)] = detected;
        m_machineCombo->setItemText(index, label);
    }
    if (select) {
        m_machineCombo->setCurrentIndex(index);
        onMachineChosen(); // the entry may have been current already, with older figures
    }
}

bool MachinePanel::selectMachine(const QString& id) {
    const int index = m_machineCombo->findData(id);
    if (index < 0) {
        return false;
    }
    m_machineCombo->setCurrentIndex(index);
    return true;
}

QString MachinePanel::selectedMachineId() const {
    return m_machineCombo->currentData().toString();
}

std::optional<std::uint64_t> MachinePanel::selectedCarveOutBytes() const {
    if (!m_carveOutCombo->isVisible() && m_carveOutCombo->count() == 0) {
        return std::nullopt;
    }
    const QVariant data = m_carveOutCombo->currentData();
    return data.isValid() ? std::optional<std::uint64_t>(data.toULongLong()) : std::nullopt;
}

bool MachinePanel::selectCarveOut(std::uint64_t bytes) {
    const int index = m_carveOutCombo->findData(QVariant::fromValue<qulonglong>(bytes));
    if (index < 0) {
        return false;
    }
    m_carveOutCombo->setCurrentIndex(index);
    return true;
}

void MachinePanel::onMachineChosen() {
    const int index = m_machineCombo->currentIndex();
    if (index < 0 || static_cast<std::size_t>(index) >= m_machines.size()) {
        return;
    }
    m_session->setMachine(m_machines[static_cast<std::size_t>(index)]);
    refreshCarveOuts();
    refreshAdvice();
}

void MachinePanel::onCarveOutChosen() {
    const int index = m_machineCombo->currentIndex();
    const QVariant data = m_carveOutCombo->currentData();
    if (index < 0 || !data.isValid()) {
        return;
    }
    const std::optional<Machine> split =
        withCarveOut(m_machines[static_cast<std::size_t>(index)], data.toULongLong());
    if (split) {
        m_session->setMachine(*split);
    }
}

// The carve-out choices of the chosen profile (its BIOS's list), the profile's own selected.
void MachinePanel::refreshCarveOuts() {
    const QSignalBlocker blocker(m_carveOutCombo);
    m_carveOutCombo->clear();
    const Machine& machine = m_session->machine();
    const bool apu = machine.biosSplit.has_value();
    m_carveOutCombo->setVisible(apu);
    m_carveOutLabel->setVisible(apu);
    m_adviceLabel->setVisible(apu);
    if (!apu) {
        return;
    }
    std::vector<std::uint64_t> offered = machine.biosSplit->offeredCarveOutBytes;
    if (std::find(offered.begin(), offered.end(), machine.biosSplit->carveOutBytes) == offered.end()) {
        offered.push_back(machine.biosSplit->carveOutBytes);
        std::sort(offered.begin(), offered.end());
    }
    const std::uint64_t physical = machine.biosSplit->physicalBytes;
    for (std::uint64_t carveOut : offered) {
        if (carveOut >= physical) {
            continue;
        }
        m_carveOutCombo->addItem(
            tr("%1 GiB VRAM / %2 GiB system").arg(toGiB(carveOut)).arg(toGiB(physical - carveOut)),
            QVariant::fromValue<qulonglong>(carveOut));
    }
    m_carveOutCombo->setCurrentIndex(
        m_carveOutCombo->findData(QVariant::fromValue<qulonglong>(machine.biosSplit->carveOutBytes)));
}

void MachinePanel::refreshAdvice() {
    // The margin may change from elsewhere (restored settings): the spin follows it.
    if (const int mib = static_cast<int>(m_session->marginBytes() / kMiB); m_marginSpin->value() != mib) {
        const QSignalBlocker blocker(m_marginSpin);
        m_marginSpin->setValue(mib);
    }
    const Machine& machine = m_session->machine();
    QStringList pools;
    for (const MemoryPool& pool : machine.pools) {
        if (pool.kind == PoolKind::ApuShared) {
            continue;
        }
        pools << tr("%1: %2").arg(poolDisplayName(pool.name), pool.capacityKnown
                                                                  ? formatGiBText(pool.capacityBytes)
                                                                  : tr("size unknown"));
    }
    m_summaryLabel->setText(pools.join(QStringLiteral(" · ")));
    if (!machine.biosSplit) {
        m_adviceLabel->clear();
        return;
    }
    PlacementOptions options;
    options.marginBytes = m_session->marginBytes();
    const Result<SplitAdvice> advice =
        adviseBiosSplit(m_session->model().info, m_session->settings(), machine, options);
    if (!advice) {
        m_adviceLabel->setText(QString::fromStdString(advice.error().message));
        return;
    }
    m_adviceLabel->setText(biosAdviceText(*advice));
}

QString MachinePanel::biosAdviceText(const SplitAdvice& advice) {
    if (!advice.recommended) {
        return tr("No offered split fits with margin: lower the context, use a smaller quantization or move "
                  "experts/layers to the CPU");
    }
    const auto gib = [](std::uint64_t bytes) { return QString::fromStdString(formatGiBShort(bytes)); };
    const SplitEvaluation& best = advice.splits[*advice.recommended];
    QString text =
        tr("%1 VRAM / %2 system leaves the most system RAM (%3 free even when the prompt cache and "
           "checkpoints are full) while the GPU side keeps %4 free")
            .arg(gib(best.carveOutBytes), gib(best.systemBytes), gib(freeSystemBytes(best)),
                 gib(freeGpuBytes(best)));
    switch (advice.smallerSplit) {
    case SmallerSplitProblem::None:
        break;
    case SmallerSplitProblem::TooSmallForModel:
        text += tr("; %1 is too small for the model")
                    .arg(gib(advice.splits[*advice.recommended - 1].carveOutBytes));
        break;
    case SmallerSplitProblem::TooTightOnGpu:
        text += tr("; %1 is too tight on the GPU side")
                    .arg(gib(advice.splits[*advice.recommended - 1].carveOutBytes));
        break;
    }
    return text;
}

} // namespace llamafit
