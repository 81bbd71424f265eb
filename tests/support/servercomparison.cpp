#include "tests/support/servercomparison.h"

#include "core/common/units.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

namespace llamafit::test {
namespace {

// llama.cpp prints "%8.2f MiB": each printed value is within 0.005 MiB of the true size.
constexpr double kPrintedHalfStepMiB = 0.005;
constexpr double kComputeRelativeTolerance = 0.05;
// Doubles parsed from two-decimal text are not exact; keep the bound from flipping on that.
constexpr double kSlackMiB = 1e-6;

std::string mib(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

bool withinFraction(double predicted, double logged, double fraction) {
    const double tolerance = std::max(fraction * logged, 2 * kPrintedHalfStepMiB);
    return std::fabs(predicted - logged) <= tolerance + kSlackMiB;
}

class Comparer {
  public:
    explicit Comparer(ServerComparison& out) : m_out(out) {}

    // Exact to print precision: `lines` printed values were summed into `logged`.
    bool exact(const std::string& what, double predicted, double logged, std::uint32_t lines = 1) {
        const double tolerance =
            kPrintedHalfStepMiB * std::max<std::uint32_t>(lines, 1) + kPrintedHalfStepMiB;
        if (std::fabs(predicted - logged) > tolerance + kSlackMiB) {
            m_out.mismatches.push_back(what + ": predicted " + mib(predicted) + " MiB, logged " +
                                       mib(logged) + " MiB (tolerance " + mib(tolerance) + ")");
            return false;
        }
        return true;
    }
    bool relative(const std::string& what, double predicted, double logged) {
        if (!withinFraction(predicted, logged, kComputeRelativeTolerance)) {
            const double percent = logged > 0 ? 100.0 * (predicted - logged) / logged : 0.0;
            m_out.mismatches.push_back(what + ": predicted " + mib(predicted) + " MiB, logged " +
                                       mib(logged) + " MiB (" + mib(percent) + " %, tolerance 5 %)");
            return false;
        }
        return true;
    }
    template <typename A, typename B>
    void equal(const std::string& what, const A& predicted, const B& logged) {
        if (!(predicted == logged)) {
            m_out.mismatches.push_back(what + ": predicted " + text(predicted) + ", logged " + text(logged));
        }
    }

  private:
    static std::string text(bool v) { return v ? "true" : "false"; }
    static std::string text(std::uint32_t v) { return std::to_string(v); }
    static std::string text(const std::string& v) { return v; }
    ServerComparison& m_out;
};

using ByBuffer = std::map<std::string, double>;

// The estimate's buffers of one component and owner, in MiB by buffer type.
ByBuffer predictedBuffers(const MemoryEstimate& estimate, Component component,
                          BufferOwner owner = BufferOwner::Main) {
    ByBuffer result;
    for (const DeviceEstimate& device : estimate.devices) {
        for (const BufferEstimate& buffer : device.buffers) {
            if (buffer.component == component && buffer.owner == owner) {
                result[buffer.bufferType] += toMiB(buffer.bytes);
            }
        }
    }
    return result;
}

std::string ratioText(double ratio) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", ratio);
    return text;
}

void compareBuffers(Comparer& compare, Component component, const ByBuffer& predicted, const ByBuffer& logged,
                    const std::map<std::string, std::uint32_t>& lines, std::vector<ComparedBuffer>& compared,
                    std::string& summary) {
    std::set<std::string> types;
    for (const auto& [type, value] : predicted) {
        types.insert(type);
    }
    for (const auto& [type, value] : logged) {
        types.insert(type);
    }
    for (const std::string& type : types) {
        const auto p = predicted.find(type);
        const auto l = logged.find(type);
        const auto n = lines.find(type);
        const std::string what = std::string(componentName(component)) + " " + type;
        const double predictedMiB = p == predicted.end() ? 0.0 : p->second;
        const double loggedMiB = l == logged.end() ? 0.0 : l->second;
        ComparedBuffer buffer;
        buffer.component = component;
        buffer.bufferType = type;
        buffer.host = isHostBufferType(type);
        buffer.predictedMiB = predictedMiB;
        buffer.loggedMiB = loggedMiB;
        buffer.withinTolerance =
            component == Component::Compute
                ? compare.relative(what, predictedMiB, loggedMiB)
                : compare.exact(what, predictedMiB, loggedMiB, n == lines.end() ? 1 : n->second);
        if (component == Component::Compute) {
            summary += what + " " + mib(predictedMiB) + "/" + mib(loggedMiB) +
                       " MiB = " + ratioText(buffer.ratio()) + "; ";
        }
        compared.push_back(std::move(buffer));
    }
}

std::map<std::string, std::uint32_t> oneLineEach(const ByBuffer& logged) {
    std::map<std::string, std::uint32_t> lines;
    for (const auto& [type, value] : logged) {
        lines[type] = 1;
    }
    return lines;
}

void compareCaches(Comparer& compare, const MemoryEstimate& estimate, const AllocationLog& log) {
    compare.equal("kv cache count", static_cast<std::uint32_t>(estimate.kvCaches.size()),
                  static_cast<std::uint32_t>(log.kvCaches.size()));
    for (std::size_t i = 0; i < std::min(estimate.kvCaches.size(), log.kvCaches.size()); ++i) {
        const KvCacheEstimate& p = estimate.kvCaches[i];
        const LoggedKvCache& l = log.kvCaches[i];
        const std::string what = std::string("kv cache ") + std::to_string(i) + (l.swa ? " (SWA)" : "") + " ";
        compare.equal(what + "swa", p.swa, l.swa);
        compare.equal(what + "cells", p.cells, l.cells);
        compare.equal(what + "layers", p.layers, l.layers);
        compare.equal(what + "streams", p.streams, l.streams);
        compare.equal(what + "type K", std::string(ggmlTypeName(p.typeK)), l.typeK);
        compare.equal(what + "type V", std::string(ggmlTypeName(p.typeV)), l.typeV);
        compare.exact(what + "K", toMiB(p.kBytes), l.kMiB);
        compare.exact(what + "V", toMiB(p.vBytes), l.vMiB);
    }
    if (log.recurrentState) {
        const LoggedRecurrentState& l = *log.recurrentState;
        // The log's "layers" is n_layer, not the recurrent layers RsEstimate counts: not compared.
        compare.equal("rs cells", estimate.rs.cells, l.cells);
        compare.equal("rs rs_seq", estimate.rs.rsSeq, l.rsSeq);
        compare.exact("rs R", toMiB(estimate.rs.rBytes), l.rMiB);
        compare.exact("rs S", toMiB(estimate.rs.sBytes), l.sMiB);
        compare.exact("rs P (not modelled)", 0.0, l.pMiB);
    } else {
        compare.exact("rs (none logged)", toMiB(estimate.rs.rBytes + estimate.rs.sBytes), 0.0);
    }
}

void compareContext(Comparer& compare, const ResolvedContext& p, const LoggedContext& l) {
    compare.equal("n_ctx", p.nCtx, l.nCtx);
    compare.equal("n_ctx_seq", p.nCtxSeq, l.nCtxSeq);
    compare.equal("n_seq_max", p.nSeqMax, l.nSeqMax);
    compare.equal("kv_unified", p.kvUnified, l.kvUnified);
    compare.equal("n_batch", p.nBatch, l.nBatch);
    compare.equal("n_ubatch", p.nUbatch, l.nUbatch);
    compare.equal("flash attention", p.flashAttention, l.flashAttention());
    if (l.nOutputsMax != 0) {
        compare.equal("n_outputs_max", p.nOutputs, l.nOutputsMax);
    }
    compare.equal("n_rs_seq", p.nRsSeq, l.nRsSeq);
}

// The MTP draft context of --spec-type draft-mtp: its buffers (kv, output exact, compute within
// 5 %), its context values and its KV cache, apart from the main context's.
void compareMtpContext(Comparer& compare, const MemoryEstimate& estimate, const AllocationLog& log,
                       ServerComparison& result) {
    compare.equal("mtp draft context", estimate.mtp.has_value(), log.mtpContext.has_value());
    if (!estimate.mtp || !log.mtpContext) {
        return;
    }
    const LoggedDraftContext& logged = *log.mtpContext;
    const std::pair<Component, const ByBuffer*> buffers[] = {{Component::Kv, &logged.kvMiB},
                                                             {Component::Output, &logged.outputMiB},
                                                             {Component::Compute, &logged.computeMiB}};
    for (const auto& [component, loggedBuffers] : buffers) {
        for (const auto& [type, predicted] : predictedBuffers(estimate, component, BufferOwner::MtpDraft)) {
            const auto it = loggedBuffers->find(type);
            const double loggedMiB = it == loggedBuffers->end() ? 0.0 : it->second;
            const std::string what = "mtp " + std::string(componentName(component)) + " " + type;
            const bool ok = component == Component::Compute ? compare.relative(what, predicted, loggedMiB)
                                                            : compare.exact(what, predicted, loggedMiB);
            if (component == Component::Compute) {
                result.summary += what + " " + mib(predicted) + "/" + mib(loggedMiB) + " MiB; ";
            }
            (void)ok;
        }
    }
    if (logged.context) {
        compareContext(compare, estimate.mtp->context, *logged.context);
    }
    compare.equal("mtp kv cache count", std::uint32_t{1}, static_cast<std::uint32_t>(logged.kvCaches.size()));
    if (!logged.kvCaches.empty()) {
        const KvCacheEstimate& p = estimate.mtp->kv;
        const LoggedKvCache& l = logged.kvCaches.front();
        compare.equal("mtp kv cells", p.cells, l.cells);
        compare.equal("mtp kv layers", p.layers, l.layers);
        compare.equal("mtp kv type K", std::string(ggmlTypeName(p.typeK)), l.typeK);
        compare.exact("mtp kv K", toMiB(p.kBytes), l.kMiB);
        compare.exact("mtp kv V", toMiB(p.vBytes), l.vMiB);
    }
}

} // namespace

// The draft model of -md: its weights (to print precision, per logged line), KV, RS and output
// exact, compute within 5 %, its context values and KV caches, apart from the main model's.
void compareDraftModelContext(Comparer& compare, const MemoryEstimate& estimate, const AllocationLog& log,
                              ServerComparison& result) {
    compare.equal("draft model context", estimate.draft.has_value(), log.draftModelContext.has_value());
    if (!estimate.draft || !log.draftModelContext) {
        return;
    }
    const LoggedDraftContext& logged = *log.draftModelContext;
    const std::pair<Component, const ByBuffer*> buffers[] = {{Component::Model, &logged.modelMiB},
                                                             {Component::Kv, &logged.kvMiB},
                                                             {Component::Rs, &logged.rsMiB},
                                                             {Component::Output, &logged.outputMiB},
                                                             {Component::Compute, &logged.computeMiB}};
    for (const auto& [component, loggedBuffers] : buffers) {
        const ByBuffer predicted = predictedBuffers(estimate, component, BufferOwner::DraftModel);
        std::set<std::string> types;
        for (const auto& [type, value] : predicted) {
            types.insert(type);
        }
        for (const auto& [type, value] : *loggedBuffers) {
            types.insert(type);
        }
        for (const std::string& type : types) {
            const auto p = predicted.find(type);
            const auto l = loggedBuffers->find(type);
            const double predictedMiB = p == predicted.end() ? 0.0 : p->second;
            const double loggedMiB = l == loggedBuffers->end() ? 0.0 : l->second;
            const std::string what = "draft " + std::string(componentName(component)) + " " + type;
            if (component == Component::Compute) {
                compare.relative(what, predictedMiB, loggedMiB);
                result.summary += what + " " + mib(predictedMiB) + "/" + mib(loggedMiB) + " MiB; ";
            } else {
                const auto lines = logged.modelLines.find(type);
                const std::uint32_t lineCount =
                    component == Component::Model && lines != logged.modelLines.end() ? lines->second : 1;
                compare.exact(what, predictedMiB, loggedMiB, lineCount);
            }
        }
    }
    if (logged.context) {
        compareContext(compare, estimate.draft->context, *logged.context);
    }
    const std::vector<KvCacheEstimate>& caches = estimate.draft->kvCaches;
    compare.equal("draft kv cache count", static_cast<std::uint32_t>(caches.size()),
                  static_cast<std::uint32_t>(logged.kvCaches.size()));
    for (std::size_t i = 0; i < std::min(caches.size(), logged.kvCaches.size()); ++i) {
        const KvCacheEstimate& p = caches[i];
        const LoggedKvCache& l = logged.kvCaches[i];
        const std::string what = "draft kv cache " + std::to_string(i) + " ";
        compare.equal(what + "cells", p.cells, l.cells);
        compare.equal(what + "layers", p.layers, l.layers);
        compare.equal(what + "type K", std::string(ggmlTypeName(p.typeK)), l.typeK);
        compare.equal(what + "type V", std::string(ggmlTypeName(p.typeV)), l.typeV);
        compare.exact(what + "K", toMiB(p.kBytes), l.kMiB);
        compare.exact(what + "V", toMiB(p.vBytes), l.vMiB);
    }
}

ServerComparison compareWithServer(const MemoryEstimate& estimate, const AllocationLog& log) {
    ServerComparison result;
    Comparer compare(result);

    // Per device and component: always (the estimate's ComponentBytes).
    const auto loggedDevices = log.devices();
    std::set<std::string> names;
    for (const auto& d : estimate.devices) {
        names.insert(d.name);
    }
    for (const auto& d : loggedDevices) {
        names.insert(d.name);
    }
    std::string summary;
    for (const std::string& name : names) {
        ComponentBytes p;
        for (const auto& d : estimate.devices) {
            if (d.name == name) {
                p = d.bytes;
            }
        }
        LoggedDevice l{name};
        for (const auto& d : loggedDevices) {
            if (d.name == name) {
                l = d;
            }
        }
        std::uint32_t modelLines = 0;
        for (const auto& [type, count] : log.modelLines) {
            modelLines += deviceOfBufferType(type) == name ? count : 0;
        }
        std::uint32_t kvLines = 0;
        for (const auto& cache : log.kvCaches) {
            for (const auto& [type, value] : cache.bufferMiB) {
                kvLines += deviceOfBufferType(type) == name ? 1 : 0;
            }
        }
        // Per device only where the estimate does not name its buffers (else the finer
        // per-buffer-type check below covers it, and one mismatch is reported once).
        if (predictedBuffers(estimate, Component::Model).empty()) {
            compare.exact(name + " model", toMiB(p.modelBytes), l.modelMiB, modelLines);
        }
        if (predictedBuffers(estimate, Component::Kv).empty()) {
            compare.exact(name + " kv", toMiB(p.kvBytes), l.kvMiB, kvLines);
        }
        if (predictedBuffers(estimate, Component::Rs).empty()) {
            compare.exact(name + " rs", toMiB(p.rsBytes), l.rsMiB);
        }
        if (predictedBuffers(estimate, Component::Output).empty()) {
            compare.exact(name + " output", toMiB(p.outputBytes), l.outputMiB);
        }
        if (predictedBuffers(estimate, Component::Compute).empty()) {
            compare.relative(name + " compute", toMiB(p.computeBytes), l.computeMiB);
        }
        summary += name + ": model " + mib(toMiB(p.modelBytes)) + "/" + mib(l.modelMiB) + " kv " +
                   mib(toMiB(p.kvBytes)) + "/" + mib(l.kvMiB) + " rs " + mib(toMiB(p.rsBytes)) + "/" +
                   mib(l.rsMiB) + " output " + mib(toMiB(p.outputBytes)) + "/" + mib(l.outputMiB) +
                   " compute " + mib(toMiB(p.computeBytes)) + "/" + mib(l.computeMiB) +
                   " (predicted/logged MiB); ";
    }
    result.summary = summary;

    // Per buffer type, where the estimate names its buffers.
    if (!predictedBuffers(estimate, Component::Model).empty()) {
        compareBuffers(compare, Component::Model, predictedBuffers(estimate, Component::Model), log.modelMiB,
                       log.modelLines, result.buffers, result.summary);
    }
    const std::pair<Component, const ByBuffer*> others[] = {{Component::Kv, &log.kvMiB},
                                                            {Component::Rs, &log.rsMiB},
                                                            {Component::Output, &log.outputMiB},
                                                            {Component::Compute, &log.computeMiB}};
    std::map<std::string, std::uint32_t> kvLinesByType;
    for (const auto& cache : log.kvCaches) {
        for (const auto& [type, value] : cache.bufferMiB) {
            ++kvLinesByType[type];
        }
    }
    for (const auto& [component, logged] : others) {
        const ByBuffer predicted = predictedBuffers(estimate, component);
        if (!predicted.empty()) {
            compareBuffers(compare, component, predicted, *logged,
                           component == Component::Kv ? kvLinesByType : oneLineEach(*logged), result.buffers,
                           result.summary);
        }
    }

    if (log.context) {
        compareContext(compare, estimate.context, *log.context);
    } else {
        result.mismatches.push_back("the log has no llama_context values");
    }
    compareCaches(compare, estimate, log);
    compareMtpContext(compare, estimate, log, result);
    compareDraftModelContext(compare, estimate, log, result);
    // LoRA adapters: their weight buffers, per buffer type, to print precision.
    const ByBuffer lora = predictedBuffers(estimate, Component::Model, BufferOwner::LoraAdapter);
    if (!lora.empty() || !log.loraMiB.empty()) {
        std::set<std::string> types;
        for (const auto& [type, value] : lora) {
            types.insert(type);
        }
        for (const auto& [type, value] : log.loraMiB) {
            types.insert(type);
        }
        for (const std::string& type : types) {
            const auto p = lora.find(type);
            const auto l = log.loraMiB.find(type);
            compare.exact("lora " + type, p == lora.end() ? 0.0 : p->second,
                          l == log.loraMiB.end() ? 0.0 : l->second);
        }
    }
    return result;
}

bool ComparedBuffer::withinRelative(double fraction) const {
    return withinFraction(predictedMiB, loggedMiB, fraction);
}

double ComparedBuffer::ratio() const {
    if (loggedMiB == 0) {
        return predictedMiB == 0 ? 1.0 : std::numeric_limits<double>::infinity();
    }
    return predictedMiB / loggedMiB;
}

RunVerdict judgeServerRun(const Result<MemoryEstimate>& estimate, const AllocationLog& log) {
    RunVerdict verdict;
    if (!estimate.ok()) {
        verdict.passed = log.loadFailed;
        if (!verdict.passed) {
            verdict.failure = "the estimate refuses these settings (" + estimate.error().code + ": " +
                              estimate.error().message + ") but llama-server loaded them";
        }
        return verdict;
    }
    if (!estimate->serverAborts.empty()) {
        // The estimate foretells ggml's abort: the server must abort with the same words.
        verdict.passed = !log.reserveComplete && log.abortMessage == estimate->serverAborts;
        if (!verdict.passed) {
            verdict.failure = "the estimate says llama-server aborts (" + estimate->serverAborts +
                              ") but it " +
                              (log.reserveComplete ? std::string("allocated")
                                                   : "stopped with \"" + log.abortMessage + "\"");
        }
        return verdict;
    }
    if (!log.reserveComplete) {
        verdict.failure = "llama-server failed where the estimate expects it to load:";
        if (!log.abortMessage.empty()) {
            verdict.failure += "\n  ggml aborted: " + log.abortMessage;
        }
        for (const std::string& line : log.errorLines) {
            verdict.failure += "\n  " + line;
        }
        return verdict;
    }
    const ServerComparison comparison = compareWithServer(*estimate, log);
    verdict.summary = comparison.summary;
    verdict.buffers = comparison.buffers;
    verdict.passed = comparison.ok();
    if (!verdict.passed) {
        verdict.failure = "differs from llama-server:";
        for (const std::string& mismatch : comparison.mismatches) {
            verdict.failure += "\n  " + mismatch;
        }
    }
    return verdict;
}

} // namespace llamafit::test
