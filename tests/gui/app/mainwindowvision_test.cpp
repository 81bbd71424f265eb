// "With vision" in the composed app (issue 11 item 6): a model with a vision projector beside it
// in a library folder -- the tiny llama and the generated gemma3 projector
// (tests/data/shapes/mmproj), whose output width is the tiny model's -- is offered the row's
// chooseWithVisionAction, which chooses it with --mmproj that file: the estimate holds the
// projector's weights and warm-up buffer and the memory chart draws them as their own segment.
// A model alone in a subfolder (the MTP shape) is not offered it.
#include "tests/gui/app/mainwindowfixture.h"

#include <QAction>

namespace llamafit {
namespace {

class MainWindowVisionTest : public test::MainWindowFixture {
  protected:
    void SetUp() override {
        MainWindowFixture::SetUp();
        m_projectorPath = writeShape("mmproj/gemma3-mmproj.json", QStringLiteral("lib/mmproj-app-tiny.gguf"));
        m_alonePath = writeShape("mtp/qwen35moe-mtp.json", QStringLiteral("lib/other/alone.gguf")); // sparse
    }

    QString m_projectorPath;
    QString m_alonePath;
};

TEST_F(MainWindowVisionTest, ThePickerOffersWithVisionForAModelWithAProjectorBesideIt) {
    openWindow();
    ASSERT_TRUE(waitForScan());
    ASSERT_GE(tableRowOf(m_tinyPath), 0);
    ASSERT_GE(tableRowOf(m_alonePath), 0);
    EXPECT_LT(tableRowOf(m_projectorPath), 0) << "a projector is not a model of its own";

    auto* table = child<QTableView>("modelTable");
    auto* withVision = child<QAction>("chooseWithVisionAction");
    ASSERT_NE(withVision, nullptr);
    EXPECT_TRUE(table->actions().contains(withVision)) << "offered in the row's menu";

    clickModelRow(m_alonePath);
    ASSERT_EQ(QString::fromStdString(m_session->model().path), m_alonePath);
    EXPECT_FALSE(withVision->isEnabled()) << "no projector in its folder";

    clickModelRow(m_tinyPath);
    ASSERT_EQ(QString::fromStdString(m_session->model().path), m_tinyPath);
    ASSERT_TRUE(withVision->isEnabled());
    EXPECT_TRUE(withVision->toolTip().contains(QDir::toNativeSeparators(m_projectorPath)))
        << withVision->toolTip().toStdString();
    EXPECT_TRUE(m_session->settings().projector.path.empty()) << "chosen plainly, no projector";
    withVision->trigger();
    EXPECT_EQ(QString::fromStdString(m_session->model().path), m_tinyPath);
    EXPECT_EQ(QString::fromStdString(m_session->settings().projector.path), m_projectorPath);
    ASSERT_TRUE(m_session->estimate().ok()) << m_session->estimate().error().message;
    std::uint64_t projectorBytes = 0;
    for (const DeviceEstimate& device : m_session->estimate()->devices) {
        for (const BufferEstimate& buffer : device.buffers) {
            projectorBytes += buffer.owner == BufferOwner::Projector ? buffer.bytes : 0;
        }
    }
    EXPECT_GT(projectorBytes, 0u) << "the projector's weights and warm-up buffer are estimated";
    ASSERT_NE(m_window->findChild<MemoryChart*>(), nullptr);
    EXPECT_GT(chartOwnerMiB(BufferOwner::Projector), 0.0) << "the projector is its own segment";
}

} // namespace
} // namespace llamafit
