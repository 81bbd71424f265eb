// The buffers of the MTP draft context (--spec-type draft-mtp) and of LoRA adapters (--lora) are
// their own segments of the memory chart (issue 11 item 6), not part of the KV, output, compute
// and weights segments they would otherwise join: their bytes are the core's buffers of that
// owner, the main components keep the rest, hover names each buffer with its llama.cpp rule, the
// breakdown lists them, and the legend shows an owner only while a pool holds some. MTP on the
// sparse Qwen3.5-35B-A3B shape with its NextN block, through a real session and chart; LoRA on
// the llama shape with the rank-16 adapter of tests/data/shapes/lora, through poolSegments
// (SizingSession does not read adapter files).
#include "chartfixtures.h"
#include "core/common/units.h"
#include "core/model/loraadapter.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/estimator.h"
#include "tests/support/modelfiles.h"
#include "ui/charts/memorychart.h"
#include "ui/charts/poolsegments.h"
#include "ui/charts/ruletext.h"
#include "ui/chartstyle.h"

#include <QLabel>
#include <QTemporaryDir>

#include <qcustomplot.h>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using testing::builtinMachine;
using testing::settingsWith;

constexpr double kSegmentToleranceMiB = 0.01;

// The bytes of the owner's buffers of one component, or of every component, on every device.
std::uint64_t ownerBytes(const MemoryEstimate& estimate, BufferOwner owner,
                         std::optional<Component> component = std::nullopt) {
    std::uint64_t bytes = 0;
    for (const DeviceEstimate& device : estimate.devices) {
        for (const BufferEstimate& buffer : device.buffers) {
            if (buffer.owner == owner && (!component || buffer.component == *component)) {
                bytes += buffer.bytes;
            }
        }
    }
    return bytes;
}

bool legendHas(QCustomPlot& plot, const QString& name) {
    for (int i = 0; i < plot.legend->itemCount(); ++i) {
        auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i));
        if (item != nullptr && item->plottable()->name() == name) {
            return true;
        }
    }
    return false;
}

class MtpChart : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(m_directory.isValid());
        const auto spec = test::loadModelSpecFile(test::shapesDirectory() + "/mtp/qwen35moe-mtp.json");
        ASSERT_TRUE(spec.ok()) << spec.error().message;
        const std::string path = m_directory.filePath(QStringLiteral("qwen35moe-mtp.gguf")).toStdString();
        const auto written = test::writeSpecAsGguf(*spec, path);
        ASSERT_TRUE(written.ok()) << written.error().message;
        Result<LoadedModel> model = loadModel(path);
        ASSERT_TRUE(model.ok()) << model.error().message;
        ASSERT_GT(model->info.nextnLayerCount, 0u);
        m_session = std::make_unique<SizingSession>(builtinMachine("cpu-only"));
        m_session->setModel(std::move(*model));
    }

    void setMtp(bool on) {
        ServerSettings settings = settingsWith(8192, GgmlType::F16, GgmlType::F16, 2);
        if (on) {
            settings.speculative.types = {SpeculativeType::DraftMtp};
        }
        m_session->setSettings(settings);
        ASSERT_TRUE(m_session->estimate().ok()) << m_session->estimate().error().message;
    }

    // The chart's bars of one kind summed over the drawn pools, in MiB.
    static double ownerMiB(const MemoryChart& chart, const PoolUsage& usage, BufferOwner owner) {
        double sum = 0;
        for (std::size_t pool = 0; pool < usage.pools.size(); ++pool) {
            sum += chart.ownerBarValueMiB(pool, owner);
        }
        return sum;
    }
    static double componentMiB(const MemoryChart& chart, const PoolUsage& usage, Component component) {
        double sum = 0;
        for (std::size_t pool = 0; pool < usage.pools.size(); ++pool) {
            sum += chart.barValueMiB(pool, component);
        }
        return sum;
    }

    QTemporaryDir m_directory;
    std::unique_ptr<SizingSession> m_session;
};

TEST_F(MtpChart, TheDraftContextIsItsOwnSegmentAndTheMainComponentsKeepTheRest) {
    MemoryChart chart(m_session.get());
    setMtp(true);
    const MemoryEstimate& estimate = *m_session->estimate();
    const PoolUsage& usage = *m_session->poolUsage();
    const std::uint64_t draft = ownerBytes(estimate, BufferOwner::MtpDraft);
    ASSERT_GT(ownerBytes(estimate, BufferOwner::MtpDraft, Component::Kv), 0u);
    ASSERT_GT(ownerBytes(estimate, BufferOwner::MtpDraft, Component::Compute), 0u);
    EXPECT_NEAR(ownerMiB(chart, usage, BufferOwner::MtpDraft), toMiB(draft), kSegmentToleranceMiB);
    for (Component component : {Component::Kv, Component::Output, Component::Compute}) {
        EXPECT_NEAR(
            componentMiB(chart, usage, component),
            toMiB(estimate.totals.get(component) - ownerBytes(estimate, BufferOwner::MtpDraft, component)),
            kSegmentToleranceMiB)
            << componentName(component);
    }
    EXPECT_TRUE(legendHas(*chart.plot(), bufferOwnerLabel(BufferOwner::MtpDraft)));
    EXPECT_FALSE(legendHas(*chart.plot(), bufferOwnerLabel(BufferOwner::LoraAdapter)));

    // Hover: the draft context's buffers, each with its rule; the KV segment holds only the main cache.
    const std::size_t host = m_session->machine().hostPoolIndex;
    const QString draftTip = chart.ownerToolTipAt(host, BufferOwner::MtpDraft);
    EXPECT_TRUE(draftTip.startsWith(bufferOwnerLabel(BufferOwner::MtpDraft))) << draftTip.toStdString();
    EXPECT_TRUE(draftTip.contains(QStringLiteral("--spec-type draft-mtp"))) << draftTip.toStdString();
    const QString kvTip = chart.toolTipAt(host, Component::Kv);
    for (const BufferEstimate& buffer : estimate.devices.front().buffers) {
        if (buffer.owner != BufferOwner::MtpDraft || buffer.bytes == 0) {
            continue;
        }
        EXPECT_TRUE(draftTip.contains(formatMiBText(buffer.bytes))) << draftTip.toStdString();
        EXPECT_TRUE(draftTip.contains(ruleText(buffer.rule))) << draftTip.toStdString();
    }
    const std::uint64_t draftKv = ownerBytes(estimate, BufferOwner::MtpDraft, Component::Kv);
    EXPECT_TRUE(
        kvTip.startsWith(QStringLiteral("%1 in %2: %3")
                             .arg(componentLabel(Component::Kv), poolDisplayName(usage.pools[host].poolName),
                                  formatMiBText(estimate.totals.kvBytes - draftKv))))
        << kvTip.toStdString();
    auto* breakdown = chart.findChild<QLabel*>(QStringLiteral("memoryBreakdownLabel"));
    ASSERT_NE(breakdown, nullptr);
    EXPECT_TRUE(breakdown->text().contains(bufferOwnerLabel(BufferOwner::MtpDraft)))
        << breakdown->text().toStdString();

    // Off again: no draft segment, no legend entry, the components are the core's totals.
    setMtp(false);
    EXPECT_EQ(ownerMiB(chart, *m_session->poolUsage(), BufferOwner::MtpDraft), 0.0);
    EXPECT_FALSE(legendHas(*chart.plot(), bufferOwnerLabel(BufferOwner::MtpDraft)));
    EXPECT_NEAR(componentMiB(chart, *m_session->poolUsage(), Component::Kv),
                toMiB(m_session->estimate()->totals.kvBytes), kSegmentToleranceMiB);
}

TEST(LoraSegments, TheAdaptersAreTheirOwnSegmentWithTheirRuleAndLeaveWithTheWeights) {
    const auto modelSpec = test::loadShape("llama");
    ASSERT_TRUE(modelSpec.ok()) << modelSpec.error().message;
    const auto modelFile = test::ggufFileForSpec(*modelSpec);
    ASSERT_TRUE(modelFile.ok()) << modelFile.error().message;
    const auto model = interpretModel(*modelFile);
    ASSERT_TRUE(model.ok()) << model.error().message;
    const auto adapterSpec = test::loadModelSpecFile(test::shapesDirectory() + "/lora/llama-lora-r16.json");
    ASSERT_TRUE(adapterSpec.ok()) << adapterSpec.error().message;
    const auto adapterFile = test::ggufFileForSpec(*adapterSpec);
    ASSERT_TRUE(adapterFile.ok()) << adapterFile.error().message;
    const auto adapter = interpretLoraAdapter(*adapterFile, "llama-lora-r16.gguf");
    ASSERT_TRUE(adapter.ok()) << adapter.error().message;

    ServerSettings settings = settingsWith(4096, GgmlType::F16, GgmlType::F16, 1);
    settings.loraAdapters = {LoraAdapterSetting{"llama-lora-r16.gguf", 1.0}};
    const Machine machine = builtinMachine("cpu-only");
    const auto estimate =
        estimateMemory(*model, settings, {}, CompanionModels{{*adapter}, std::nullopt, std::nullopt});
    ASSERT_TRUE(estimate.ok()) << estimate.error().message;
    const std::uint64_t lora = ownerBytes(*estimate, BufferOwner::LoraAdapter);
    ASSERT_GT(lora, 0u);
    const PoolUsage usage = placeOnMachine(*estimate, settings, *model, machine, {});
    std::uint64_t drawnLora = 0;
    std::uint64_t drawnWeights = 0;
    QString toolTip;
    QString breakdown;
    for (const PoolSegments& pool : poolSegments(usage, *estimate)) {
        drawnLora += pool.ownerAt(BufferOwner::LoraAdapter);
        drawnWeights += pool.componentAt(Component::Model);
        if (pool.ownerAt(BufferOwner::LoraAdapter) > 0) {
            toolTip = pool.ownerToolTip(BufferOwner::LoraAdapter);
            breakdown = poolBreakdownText(pool);
            EXPECT_EQ(withoutWeights(pool).ownerAt(BufferOwner::LoraAdapter), 0u);
        }
    }
    EXPECT_EQ(drawnLora, lora);
    EXPECT_EQ(drawnWeights, estimate->totals.modelBytes - lora);
    EXPECT_TRUE(toolTip.startsWith(bufferOwnerLabel(BufferOwner::LoraAdapter))) << toolTip.toStdString();
    EXPECT_TRUE(toolTip.contains(QStringLiteral("--lora"))) << toolTip.toStdString();
    for (const BufferEstimate& buffer : estimate->devices.front().buffers) {
        if (buffer.owner == BufferOwner::LoraAdapter && buffer.bytes > 0) {
            EXPECT_TRUE(toolTip.contains(ruleText(buffer.rule))) << toolTip.toStdString();
        }
    }
    EXPECT_TRUE(breakdown.contains(bufferOwnerLabel(BufferOwner::LoraAdapter))) << breakdown.toStdString();
}

} // namespace
} // namespace llamafit
