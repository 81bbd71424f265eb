// A pool's stacked segments and their tooltips; see poolsegments.h.
#include "ui/charts/poolsegments.h"

#include "core/common/units.h"
#include "ui/charts/ruletext.h"
#include "ui/chartstyle.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

namespace llamafit {

namespace {

QString fromStd(const std::string& text) {
    return QString::fromStdString(text);
}

const DeviceEstimate* findDevice(const MemoryEstimate& estimate, const std::string& name) {
    const auto it = std::find_if(estimate.devices.begin(), estimate.devices.end(),
                                 [&name](const DeviceEstimate& device) { return device.name == name; });
    return it != estimate.devices.end() ? &*it : nullptr;
}

bool drawnApart(BufferOwner owner) {
    return std::find(kChartOwnerOrder.begin(), kChartOwnerOrder.end(), owner) != kChartOwnerOrder.end();
}

// The bytes of the term's component that belong to the owners drawn apart, when the term is
// exactly its device's buffers of that component (a device's own buffers, the usual case);
// none otherwise, and the term stays whole in its component.
std::array<std::uint64_t, kChartOwnerCount> ownerShares(const PoolTerm& term, Component component,
                                                        const DeviceEstimate* device) {
    std::array<std::uint64_t, kChartOwnerCount> shares{};
    if (device == nullptr) {
        return shares;
    }
    std::uint64_t all = 0;
    for (const BufferEstimate& buffer : device->buffers) {
        if (buffer.component == component) {
            all += buffer.bytes;
            if (drawnApart(buffer.owner)) {
                shares[chartOwnerIndex(buffer.owner)] += buffer.bytes;
            }
        }
    }
    return all == term.bytes ? shares : std::array<std::uint64_t, kChartOwnerCount>{};
}

// One line per llama.cpp buffer of the component on the term's device, with the rule behind
// it (core/sizing/estimator.cpp records each buffer as llama-server -lv 4 logs it); with
// `mainOnly`, without the buffers of the owners drawn apart. The overhead is no buffer: its
// term's own rule says what it is.
void appendComponentLines(QStringList& lines, const PoolTerm& term, Component component,
                          const MemoryEstimate& estimate, bool mainOnly) {
    const DeviceEstimate* device = findDevice(estimate, term.device);
    bool any = false;
    if (device != nullptr) {
        for (const BufferEstimate& buffer : device->buffers) {
            if (buffer.component == component && buffer.bytes > 0 &&
                !(mainOnly && drawnApart(buffer.owner))) {
                lines << QCoreApplication::translate("MemoryChart", "• %1 buffer: %2 — %3")
                             .arg(fromStd(buffer.bufferType), formatMiBText(buffer.bytes),
                                  ruleText(buffer.rule));
                any = true;
            }
        }
    }
    if (!any) {
        lines << QCoreApplication::translate("MemoryChart", "• %1: %2 — %3")
                     .arg(poolTermLabel(term), formatMiBText(term.bytes), ruleText(term.rule));
    }
    if (component == Component::Overhead) {
        lines << QCoreApplication::translate(
            "MemoryChart", "  Outside every llama.cpp buffer: the GPU runtime's context, driver allocations, "
                           "pipelines and scratch (LlamaFit's allowance per backend).");
    }
}

// One line per buffer of `owner` and `component` on the device: "• CPU KV cache buffer: ...".
void appendOwnerLines(QStringList& lines, const DeviceEstimate& device, Component component,
                      BufferOwner owner) {
    for (const BufferEstimate& buffer : device.buffers) {
        if (buffer.owner == owner && buffer.component == component && buffer.bytes > 0) {
            lines << QCoreApplication::translate("MemoryChart", "• %1 %2 buffer: %3 — %4")
                         .arg(fromStd(buffer.bufferType), componentLabel(component),
                              formatMiBText(buffer.bytes), ruleText(buffer.rule));
        }
    }
}

// What the owner's buffers are, under their lines.
QString ownerExplanation(BufferOwner owner) {
    switch (owner) {
    case BufferOwner::MtpDraft:
        // llama.cpp common/speculative.cpp: draft-mtp creates a second context against the target
        // model, for the NextN block's layers only.
        return QCoreApplication::translate(
            "MemoryChart",
            "  --spec-type draft-mtp: a second llama.cpp context on the model's own NextN "
            "(MTP) block, with its own KV cache of the NextN layers, logits and compute buffer.");
    case BufferOwner::LoraAdapter:
        // llama.cpp src/llama-adapter.cpp: each adapter tensor in the buffer type of the weight it modifies.
        return QCoreApplication::translate("MemoryChart",
                                           "  --lora / --lora-scaled: the adapters' tensors, each on the "
                                           "device of the weight it modifies.");
    case BufferOwner::DraftModel:
        // llama.cpp common/speculative.cpp: -md loads a second model and creates its own context.
        return QCoreApplication::translate(
            "MemoryChart", "  -md: a second model with its own context: the target's context size and slots, "
                           "its own K/V types (-ctkd/-ctvd, f16 by default) and GPU layers (-ngld).");
    case BufferOwner::Projector:
        // llama.cpp tools/mtmd/clip.cpp: the projector's tensors, and the graph its warm-up reserves.
        return QCoreApplication::translate(
            "MemoryChart", "  --mmproj: the vision projector's weights and the compute buffer its "
                           "warm-up reserves for one image (--image-max-tokens, -fa).");
    case BufferOwner::Main:
        break;
    }
    return {};
}

void appendTermLine(QStringList& lines, const PoolTerm& term) {
    QString bytes = formatMiBText(term.bytes);
    if (term.unbounded) {
        bytes = QCoreApplication::translate("MemoryChart", "no limit");
    } else if (term.upTo) {
        bytes = QCoreApplication::translate("MemoryChart", "up to %1").arg(bytes);
    }
    lines << QCoreApplication::translate("MemoryChart", "• %1: %2 — %3")
                 .arg(poolTermLabel(term), bytes, ruleText(term.rule));
}

QString header(const QString& what, const QString& pool, std::uint64_t bytes) {
    return QCoreApplication::translate("MemoryChart", "%1 in %2: %3").arg(what, pool, formatMiBText(bytes));
}

} // namespace

std::size_t chartComponentIndex(Component component) {
    const auto it = std::find(kChartComponentOrder.begin(), kChartComponentOrder.end(), component);
    return static_cast<std::size_t>(it - kChartComponentOrder.begin());
}

std::size_t chartOwnerIndex(BufferOwner owner) {
    const auto it = std::find(kChartOwnerOrder.begin(), kChartOwnerOrder.end(), owner);
    return static_cast<std::size_t>(it - kChartOwnerOrder.begin());
}

QString bufferOwnerLabel(BufferOwner owner) {
    switch (owner) {
    case BufferOwner::MtpDraft:
        return QCoreApplication::translate("MemoryChart", "MTP draft context");
    case BufferOwner::LoraAdapter:
        return QCoreApplication::translate("MemoryChart", "LoRA adapters");
    case BufferOwner::DraftModel:
        return QCoreApplication::translate("MemoryChart", "Draft model");
    case BufferOwner::Projector:
        return QCoreApplication::translate("MemoryChart", "Vision projector");
    case BufferOwner::Main:
        break;
    }
    return QCoreApplication::translate("MemoryChart", "Main context");
}

std::uint64_t PoolSegments::ownerAt(BufferOwner owner) const {
    return ownerBytes[chartOwnerIndex(owner)];
}

QString PoolSegments::ownerToolTip(BufferOwner owner) const {
    return ownerToolTips[chartOwnerIndex(owner)];
}

std::uint64_t PoolSegments::componentAt(Component component) const {
    return componentBytes[chartComponentIndex(component)];
}

QString PoolSegments::componentToolTip(Component component) const {
    return componentToolTips[chartComponentIndex(component)];
}

std::uint64_t PoolSegments::atLoadBytes() const {
    std::uint64_t total = reservationBytes + otherBytes;
    for (std::uint64_t bytes : componentBytes) {
        total += bytes;
    }
    for (std::uint64_t bytes : ownerBytes) {
        total += bytes;
    }
    return total;
}

std::uint64_t PoolSegments::topBytes() const {
    return atLoadBytes() + growthBytes;
}

bool poolIsDrawn(const PoolLoad& load) {
    return load.kind != PoolKind::ApuShared || load.llamaAtLoadBytes > 0;
}

std::vector<PoolSegments> poolSegments(const PoolUsage& usage, const MemoryEstimate& estimate) {
    std::vector<PoolSegments> out;
    for (const PoolLoad& load : usage.pools) {
        if (!poolIsDrawn(load)) {
            continue;
        }
        PoolSegments pool;
        pool.poolIndex = load.poolIndex;
        pool.name = poolDisplayName(load.poolName);
        pool.kind = load.kind;
        pool.capacityBytes = load.capacityBytes;
        pool.capacityKnown = load.capacityKnown;
        pool.verdict = load.verdict;
        pool.headroomBytes = load.headroomBytes;
        QStringList reservation, other, growth;
        std::array<QStringList, 6> components;
        std::array<QStringList, kChartOwnerCount> owners;
        for (const PoolTerm& term : load.terms) {
            if (term.reservation) {
                pool.reservationBytes += term.bytes;
                appendTermLine(reservation, term);
            } else if (term.upTo) {
                pool.growthBytes += term.bytes;
                pool.growthUnbounded = pool.growthUnbounded || term.unbounded;
                appendTermLine(growth, term);
            } else if (term.component) {
                const std::size_t index = chartComponentIndex(*term.component);
                const DeviceEstimate* device = findDevice(estimate, term.device);
                const std::array<std::uint64_t, kChartOwnerCount> shares =
                    ownerShares(term, *term.component, device);
                std::uint64_t mainBytes = term.bytes;
                for (std::size_t o = 0; o < kChartOwnerOrder.size(); ++o) {
                    if (shares[o] > 0) {
                        pool.ownerBytes[o] += shares[o];
                        pool.ownerWeightBytes[o] += *term.component == Component::Model ? shares[o] : 0;
                        mainBytes -= shares[o];
                        appendOwnerLines(owners[o], *device, *term.component, kChartOwnerOrder[o]);
                    }
                }
                pool.componentBytes[index] += mainBytes;
                if (mainBytes > 0) {
                    appendComponentLines(components[index], term, *term.component, estimate,
                                         mainBytes != term.bytes);
                }
            } else {
                pool.otherBytes += term.bytes;
                appendTermLine(other, term);
            }
        }
        pool.reservationToolTip =
            header(QCoreApplication::translate("MemoryChart", "Reserved (OS, desktop, other programs)"),
                   pool.name, pool.reservationBytes) +
            u'\n' + reservation.join(u'\n');
        for (std::size_t i = 0; i < kChartComponentOrder.size(); ++i) {
            pool.componentToolTips[i] =
                header(componentLabel(kChartComponentOrder[i]), pool.name, pool.componentBytes[i]) + u'\n' +
                components[i].join(u'\n');
        }
        for (std::size_t o = 0; o < kChartOwnerOrder.size(); ++o) {
            pool.ownerToolTips[o] =
                header(bufferOwnerLabel(kChartOwnerOrder[o]), pool.name, pool.ownerBytes[o]) + u'\n' +
                owners[o].join(u'\n') + u'\n' + ownerExplanation(kChartOwnerOrder[o]);
        }
        pool.otherToolTip = header(QCoreApplication::translate("MemoryChart", "Other llama-server memory"),
                                   pool.name, pool.otherBytes) +
                            u'\n' + other.join(u'\n');
        pool.growthToolTip = header(QCoreApplication::translate("MemoryChart", "Run-time growth (up to)"),
                                    pool.name, pool.growthBytes) +
                             u'\n' + growth.join(u'\n');
        out.push_back(std::move(pool));
    }
    return out;
}

void appendDecodeSpeedLine(PoolSegments& pool, const QString& line) {
    for (Component component : {Component::Model, Component::Kv, Component::Rs}) {
        const std::size_t index = chartComponentIndex(component);
        if (pool.componentBytes[index] > 0) {
            pool.componentToolTips[index] += u'\n' + line;
        }
    }
}

QString poolVerdictText(const PoolSegments& pool) {
    if (!pool.capacityKnown || pool.verdict == FitVerdict::Unknown) {
        return verdictLabel(FitVerdict::Unknown);
    }
    if (pool.headroomBytes < 0) {
        return QCoreApplication::translate("MemoryChart", "%1 · %2 over")
            .arg(verdictLabel(pool.verdict), formatGiBText(static_cast<std::uint64_t>(-pool.headroomBytes)));
    }
    return QCoreApplication::translate("MemoryChart", "%1 · %2 free")
        .arg(verdictLabel(pool.verdict), formatGiBText(static_cast<std::uint64_t>(pool.headroomBytes)));
}

PoolSegments withoutWeights(PoolSegments pool) {
    pool.reservationBytes = 0;
    pool.componentBytes[chartComponentIndex(Component::Model)] = 0;
    for (std::size_t o = 0; o < kChartOwnerOrder.size(); ++o) {
        pool.ownerBytes[o] -= pool.ownerWeightBytes[o]; // the adapters', the draft's, the projector's
        pool.ownerWeightBytes[o] = 0;
    }
    pool.otherBytes = 0; // the weights again: their page cache, GPU buffers seen in shared RAM
    return pool;
}

QString poolBreakdownText(const PoolSegments& pool) {
    QStringList parts;
    for (std::size_t i = 0; i < kChartComponentOrder.size(); ++i) {
        const std::uint64_t bytes = pool.componentBytes[i];
        if (bytes == 0) {
            continue;
        }
        const QString size = bytes >= kGiB ? formatGiBText(bytes) : formatMiBText(bytes);
        parts << QStringLiteral("%1 %2").arg(componentLabel(kChartComponentOrder[i]), size);
    }
    for (std::size_t o = 0; o < kChartOwnerOrder.size(); ++o) {
        const std::uint64_t bytes = pool.ownerBytes[o];
        if (bytes > 0) {
            parts << QStringLiteral("%1 %2").arg(bufferOwnerLabel(kChartOwnerOrder[o]),
                                                 bytes >= kGiB ? formatGiBText(bytes) : formatMiBText(bytes));
        }
    }
    if (parts.isEmpty()) {
        return QCoreApplication::translate("MemoryChart", "%1: nothing of llama-server's").arg(pool.name);
    }
    return QStringLiteral("%1: %2").arg(pool.name, parts.join(QStringLiteral(" · ")));
}

} // namespace llamafit
