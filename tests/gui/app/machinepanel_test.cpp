// MachinePanel: choosing a profile, an APU's BIOS split and the margin changes the session's
// machine and the core's answers; a detected machine joins the list.
#include "ui/machinepanel.h"

#include "core/common/units.h"
#include "core/machine/machineprofile.h"
#include "ui/sizingsession.h"

#include <QComboBox>
#include <QSpinBox>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

Machine seedMachine() {
    return *findBuiltinMachine(defaultMachineId());
}

TEST(MachinePanel, ListsTheBuiltInProfilesWithTheSessionsSelected) {
    SizingSession session(seedMachine());
    MachinePanel panel(&session);
    auto* combo = panel.findChild<QComboBox*>(QStringLiteral("machineCombo"));
    ASSERT_NE(combo, nullptr);
    EXPECT_EQ(combo->count(), static_cast<int>(builtinMachines().size()));
    EXPECT_EQ(panel.selectedMachineId(), QString::fromStdString(std::string(defaultMachineId())));
}

TEST(MachinePanel, ChoosingAProfileChangesTheSessionsMachine) {
    SizingSession session(seedMachine());
    MachinePanel panel(&session);
    ASSERT_TRUE(panel.selectMachine(QStringLiteral("rtx-4060-8gb")));
    EXPECT_EQ(session.machine(), *findBuiltinMachine("rtx-4060-8gb"));
    EXPECT_EQ(session.gpus().size(), 1U);
}

TEST(MachinePanel, ABiosSplitRebuildsTheApusPools) {
    SizingSession session(seedMachine());
    MachinePanel panel(&session);
    auto* carveOut = panel.findChild<QComboBox*>(QStringLiteral("carveOutCombo"));
    ASSERT_NE(carveOut, nullptr);
    ASSERT_GT(carveOut->count(), 1);
    const std::uint64_t wanted = 48 * kGiB;
    ASSERT_TRUE(panel.selectCarveOut(wanted)) << "the EVO-X2 BIOS offers 48 GiB";
    const std::optional<Machine> expected = withCarveOut(seedMachine(), wanted);
    ASSERT_TRUE(expected.has_value());
    EXPECT_EQ(session.machine(), *expected);
    EXPECT_EQ(panel.selectedCarveOutBytes(), wanted);
}

TEST(MachinePanel, TheMarginSpinSetsTheSessionsMargin) {
    SizingSession session(seedMachine());
    MachinePanel panel(&session);
    auto* margin = panel.findChild<QSpinBox*>(QStringLiteral("marginSpin"));
    ASSERT_NE(margin, nullptr);
    margin->setValue(2048);
    EXPECT_EQ(session.marginBytes(), 2048 * kMiB);
}

TEST(MachinePanel, TheMarginSpinFollowsTheSession) {
    SizingSession session(seedMachine());
    MachinePanel panel(&session);
    session.setMarginBytes(3072 * kMiB);
    EXPECT_EQ(panel.findChild<QSpinBox*>(QStringLiteral("marginSpin"))->value(), 3072);
}

TEST(MachinePanel, ADetectedMachineIsAddedAndCanBeSelected) {
    SizingSession session(seedMachine());
    MachinePanel panel(&session);
    Machine detected = *findBuiltinMachine("rtx-3090-24gb");
    detected.name = "Test box";
    panel.setDetectedMachine(detected, true);
    EXPECT_EQ(panel.selectedMachineId(), QStringLiteral("detected"));
    EXPECT_EQ(session.machine().name, "Test box");
    EXPECT_EQ(session.machine().pools, detected.pools);
}

} // namespace
} // namespace llamafit
