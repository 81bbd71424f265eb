// "With MTP" in the composed app (issue 11 item 6): a library file with a NextN (MTP) block --
// the sparse Qwen3.5-35B-A3B shape -- carries the picker's "MTP" badge, and its row's menu
// offers chooseWithMtpAction, which chooses it with --spec-type draft-mtp: the settings' MTP
// check follows, the estimate holds the draft context and the memory chart draws it as its own
// segment. A file without a NextN block (the tiny llama) gets neither.
#include "tests/gui/app/mainwindowfixture.h"

#include <QAction>
#include <QCheckBox>

namespace llamafit {
namespace {

class MainWindowMtpTest : public test::MainWindowFixture {
  protected:
    void SetUp() override {
        MainWindowFixture::SetUp();
        m_mtpPath = writeShape("mtp/qwen35moe-mtp.json", QStringLiteral("lib/qwen35moe-mtp.gguf")); // sparse
    }

    QString badgesOf(const QString& path) const {
        auto* table = m_window->findChild<QTableView*>(QStringLiteral("modelTable"));
        return table->model()->index(tableRowOf(path), ModelLibraryModel::Badges).data().toString();
    }

    QString m_mtpPath;
};

TEST_F(MainWindowMtpTest, ThePickerOffersWithMtpForAFileWithANextnBlock) {
    openWindow();
    ASSERT_TRUE(waitForScan());
    ASSERT_GE(tableRowOf(m_mtpPath), 0) << "the MTP-shaped file is listed";
    ASSERT_GE(tableRowOf(m_tinyPath), 0);
    EXPECT_TRUE(badgesOf(m_mtpPath).contains(QStringLiteral("MTP"))) << badgesOf(m_mtpPath).toStdString();
    EXPECT_FALSE(badgesOf(m_tinyPath).contains(QStringLiteral("MTP"))) << badgesOf(m_tinyPath).toStdString();

    auto* table = child<QTableView>("modelTable");
    auto* withMtp = child<QAction>("chooseWithMtpAction");
    ASSERT_NE(withMtp, nullptr);
    EXPECT_EQ(table->contextMenuPolicy(), Qt::ActionsContextMenu);
    EXPECT_TRUE(table->actions().contains(withMtp)) << "offered in the row's menu";
    auto* mtpCheck = child<QCheckBox>("mtpDraftCheck");

    clickModelRow(m_tinyPath);
    ASSERT_EQ(QString::fromStdString(m_session->model().path), m_tinyPath);
    EXPECT_FALSE(withMtp->isEnabled()) << "the tiny llama has no NextN block";
    EXPECT_FALSE(mtpCheck->isVisible());

    clickModelRow(m_mtpPath);
    ASSERT_EQ(QString::fromStdString(m_session->model().path), m_mtpPath);
    ASSERT_TRUE(withMtp->isEnabled());
    EXPECT_FALSE(m_session->settings().speculative.uses(SpeculativeType::DraftMtp))
        << "chosen plainly, the NextN block is skipped";
    withMtp->trigger();
    EXPECT_EQ(QString::fromStdString(m_session->model().path), m_mtpPath);
    EXPECT_TRUE(m_session->settings().speculative.uses(SpeculativeType::DraftMtp));
    EXPECT_TRUE(mtpCheck->isVisible());
    EXPECT_TRUE(mtpCheck->isChecked());
    ASSERT_TRUE(m_session->estimate().ok()) << m_session->estimate().error().message;
    ASSERT_TRUE(m_session->estimate()->mtp.has_value());
    ASSERT_NE(m_window->findChild<MemoryChart*>(), nullptr);
    EXPECT_GT(chartOwnerMiB(BufferOwner::MtpDraft), 0.0) << "the draft context is its own segment";
}

} // namespace
} // namespace llamafit
