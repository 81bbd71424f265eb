#include "core/server/allocationlog.h"

#include "core/server/logformats.h"
#include "core/server/logscanner.h"

#include <algorithm>
#include <utility>

namespace llamafit {
namespace {

using namespace logformats;

Error malformed(std::size_t lineNumber, std::string_view line) {
    return makeError("server.malformed-line", "llama-server log line " + std::to_string(lineNumber) +
                                                  " does not have the expected format: " + std::string(line));
}

// ggml.c ggml_abort writes "<file>:<line>: <message>" to stderr, outside the log's format
// ("./src/ggml-backend.cpp:1089: pre-allocated tensor (...) ..."): the message, or nothing.
std::optional<std::string_view> ggmlAbortMessage(std::string_view line) {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
        return std::nullopt;
    }
    const std::string_view file = line.substr(0, colon);
    if (file.find(' ') != std::string_view::npos ||
        !(endsWith(file, ".c") || endsWith(file, ".cpp") || endsWith(file, ".cu") || endsWith(file, ".m"))) {
        return std::nullopt;
    }
    std::size_t at = colon + 1;
    const std::size_t digits = at;
    while (at < line.size() && line[at] >= '0' && line[at] <= '9') {
        ++at;
    }
    if (at == digits || line.substr(at, 2) != ": ") {
        return std::nullopt;
    }
    return line.substr(at + 2);
}

class Parser {
  public:
    // Returns false when a line that announces a known allocation line does not parse.
    bool line(std::string_view raw);
    AllocationLog take() { return std::move(m_log); }

  private:
    bool memoryLine(std::string_view rest, bool recurrent);
    // The maps and values of the context being logged: the main one, or a draft's.
    std::map<std::string, double>& kvTarget() { return m_draft ? m_draft->kvMiB : m_log.kvMiB; }
    std::map<std::string, double>& outputTarget() { return m_draft ? m_draft->outputMiB : m_log.outputMiB; }
    std::map<std::string, double>& computeTarget() {
        return m_draft ? m_draft->computeMiB : m_log.computeMiB;
    }
    std::optional<LoggedContext>& contextTarget() { return m_draft ? m_draft->context : m_log.context; }
    // The draft model's weights and state are its own; the MTP context shares the target's.
    std::map<std::string, double>& modelTarget() {
        return m_log.draftModelContext ? m_log.draftModelContext->modelMiB : m_log.modelMiB;
    }
    std::map<std::string, std::uint32_t>& modelLinesTarget() {
        return m_log.draftModelContext ? m_log.draftModelContext->modelLines : m_log.modelLines;
    }
    std::map<std::string, double>& rsTarget() {
        return m_log.draftModelContext ? m_log.draftModelContext->rsMiB : m_log.rsMiB;
    }
    AllocationLog m_log;
    LoggedDraftContext* m_draft = nullptr;          // inside m_log, once a draft context is announced
    std::map<std::string, double> m_pendingBuffers; // KV/RS buffer lines waiting for their size line
    bool m_nextSwa = false;
    std::optional<std::uint32_t> m_nextCells;
};

bool Parser::memoryLine(std::string_view rest, bool recurrent) {
    std::string buffer;
    double mib = 0;
    if (endsWith(rest, "MiB") && contains(rest, recurrent ? " RS buffer size =" : " KV buffer size =")) {
        if (!bufferLine(LogScanner(rest), recurrent ? "RS" : "KV", buffer, mib)) {
            return false;
        }
        m_pendingBuffers[buffer] += mib;
        (recurrent ? rsTarget() : kvTarget())[buffer] += mib;
        return true;
    }
    if (!startsWith(rest, " size =")) {
        return true; // other informational lines ("n_rot_k = ...")
    }
    if (recurrent) {
        LoggedRecurrentState rs;
        if (!rsSizeLine(LogScanner(rest), rs)) {
            return false;
        }
        rs.bufferMiB = std::exchange(m_pendingBuffers, {});
        (m_log.draftModelContext ? m_log.draftModelContext->recurrentState : m_log.recurrentState) = rs;
        return true;
    }
    LoggedKvCache kv;
    if (!kvSizeLine(LogScanner(rest), kv)) {
        return false;
    }
    kv.swa = std::exchange(m_nextSwa, false);
    kv.announcedCells = std::exchange(m_nextCells, std::nullopt);
    kv.bufferMiB = std::exchange(m_pendingBuffers, {});
    (m_draft ? m_draft->kvCaches : m_log.kvCaches).push_back(std::move(kv));
    return true;
}

bool Parser::line(std::string_view raw) {
    const LogLine logLine = stripLogPrefix(raw);
    const std::string_view text = logLine.text;
    if (logLine.level == 'E') {
        m_log.errorLines.emplace_back(text);
    }
    if (const std::optional<std::string_view> message = ggmlAbortMessage(raw)) {
        m_log.abortMessage = std::string(*message);
        return true;
    }
    std::string buffer;
    double mib = 0;
    if (startsWith(text, "load_tensors:")) {
        const auto rest = text.substr(13);
        if (contains(rest, " model buffer size =")) {
            if (!bufferLine(LogScanner(rest), "model", buffer, mib)) {
                return false;
            }
            modelTarget()[buffer] += mib; // b11669 splits CPU_Mapped into one line per mapped run
            ++modelLinesTarget()[buffer];
        } else if (startsWith(rest, " offloaded ")) {
            LogScanner s(rest);
            std::uint32_t offloaded = 0, total = 0;
            if (!(s.literal("offloaded") && s.unsignedNumber(offloaded) && s.literal("/") &&
                  s.unsignedNumber(total))) {
                return false;
            }
            m_log.offloadedLayers = offloaded;
            m_log.offloadableLayers = total;
        }
    } else if (startsWith(text, "llama_context:")) {
        const auto rest = text.substr(14);
        if (contains(rest, " output buffer size =")) {
            if (!bufferLine(LogScanner(rest), "output", buffer, mib)) {
                return false;
            }
            outputTarget()[buffer] += mib;
        } else if (contains(rest, " compute buffer size =")) {
            // Builds before the sched_reserve split (late 2025) printed the compute buffers here.
            if (!bufferLine(LogScanner(rest), "compute", buffer, mib)) {
                return false;
            }
            computeTarget()[buffer] = mib;
        } else {
            contextValue(rest, contextTarget());
        }
    } else if (startsWith(text, "llama_kv_cache_iswa: creating")) {
        LogScanner s(text.substr(29));
        const bool swa = !s.literal("non-SWA");
        std::uint32_t cells = 0;
        if (!((swa ? s.literal("SWA") : true) && s.literal("KV cache, size =") && s.unsignedNumber(cells))) {
            return false;
        }
        m_nextSwa = swa;
        m_nextCells = cells;
    } else if (startsWith(text, "llama_kv_cache:")) {
        return memoryLine(text.substr(15), false);
    } else if (startsWith(text, "llama_memory_recurrent:")) {
        return memoryLine(text.substr(23), true);
    } else if (startsWith(text, "resolve_fused_ops: Flash Attention ")) {
        if (auto& context = contextTarget()) {
            context->flashAttentionActive = contains(text, "enabled");
        }
    } else if (startsWith(text, "sched_reserve:")) {
        const auto rest = text.substr(14);
        if (contains(rest, " compute buffer size =")) {
            if (!bufferLine(LogScanner(rest), "compute", buffer, mib)) {
                return false;
            }
            computeTarget()[buffer] = mib; // a later reserve resizes the same buffer
        } else if (startsWith(rest, " reserve took")) {
            (m_draft ? m_draft->reserveComplete : m_log.reserveComplete) = true;
        }
    } else if (startsWith(text, "llama_adapter_lora_init_impl:") && contains(text, " LoRA buffer size =")) {
        if (!bufferLine(LogScanner(text.substr(29)), "LoRA", buffer, mib)) {
            return false;
        }
        m_log.loraMiB[buffer] += mib;
    } else if (contains(text, "common_speculative_init_result: creating MTP draft context")) {
        m_draft = &m_log.mtpContext.emplace(); // common/speculative.cpp: the draft context's lines follow
    } else if (contains(text, "common_speculative_init_result: loading draft model")) {
        m_draft = &m_log.draftModelContext.emplace(); // its weights, then its context's lines
    } else if (startsWith(text, "common_memory_breakdown_print:")) {
        const auto rest = text.substr(30);
        if (contains(rest, "| memory breakdown [MiB]")) {
            m_log.breakdownTables.emplace_back();
        } else if (startsWith(rest, " |   - ") && !m_log.breakdownTables.empty()) {
            MemoryBreakdownRow row;
            if (!breakdownRow(rest, row)) {
                return false;
            }
            m_log.breakdownTables.back().push_back(std::move(row));
        }
    } else if (const std::size_t param = text.find("common_param:"); param != std::string_view::npos) {
        std::string_view rest = text.substr(param + 13); // after the module tag ("cmn  ") when there is one
        rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
        if (startsWith(rest, "- ")) {
            if (std::optional<ListedDevice> device = parseDeviceLine(rest.substr(2))) {
                m_log.listedDevices.push_back(std::move(*device));
            }
        }
    } else if (contains(text, "llama_server: listening on") || contains(text, "server is listening on")) {
        m_log.listening = true;
    } else if (contains(text, "exiting due to model loading error")) {
        m_log.loadFailed = true;
    }
    return true;
}

void addTo(std::vector<LoggedDevice>& devices, const std::map<std::string, double>& byBuffer,
           double LoggedDevice::*component) {
    for (const auto& [bufferType, mib] : byBuffer) {
        const std::string name = deviceOfBufferType(bufferType);
        auto it = std::find_if(devices.begin(), devices.end(),
                               [&](const LoggedDevice& d) { return d.name == name; });
        if (it == devices.end()) {
            devices.push_back(LoggedDevice{name, isHostBufferType(bufferType)});
            it = devices.end() - 1;
        }
        (*it).*component += mib;
    }
}

} // namespace

double AllocationLog::sum(const std::map<std::string, double>& byBufferType) {
    double total = 0;
    for (const auto& [bufferType, mib] : byBufferType) {
        total += mib;
    }
    return total;
}

std::vector<LoggedDevice> AllocationLog::devices() const {
    std::vector<LoggedDevice> result;
    addTo(result, modelMiB, &LoggedDevice::modelMiB);
    addTo(result, loraMiB, &LoggedDevice::modelMiB);
    addTo(result, kvMiB, &LoggedDevice::kvMiB);
    addTo(result, rsMiB, &LoggedDevice::rsMiB);
    addTo(result, outputMiB, &LoggedDevice::outputMiB);
    addTo(result, computeMiB, &LoggedDevice::computeMiB);
    for (const std::optional<LoggedDraftContext>* draft : {&mtpContext, &draftModelContext}) {
        if (*draft) {
            addTo(result, (*draft)->modelMiB, &LoggedDevice::modelMiB);
            addTo(result, (*draft)->kvMiB, &LoggedDevice::kvMiB);
            addTo(result, (*draft)->rsMiB, &LoggedDevice::rsMiB);
            addTo(result, (*draft)->outputMiB, &LoggedDevice::outputMiB);
            addTo(result, (*draft)->computeMiB, &LoggedDevice::computeMiB);
        }
    }
    std::sort(result.begin(), result.end(), [](const LoggedDevice& a, const LoggedDevice& b) {
        return a.host != b.host ? a.host : a.name < b.name;
    });
    return result;
}

Result<AllocationLog> parseAllocationLog(std::string_view text) {
    Parser parser;
    std::size_t lineNumber = 0;
    while (!text.empty()) {
        ++lineNumber;
        const auto end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (!parser.line(line)) {
            return malformed(lineNumber, line);
        }
    }
    return parser.take();
}

bool isWholeBreakdownTable(const std::vector<MemoryBreakdownRow>& table) {
    return std::any_of(table.begin(), table.end(),
                       [](const MemoryBreakdownRow& row) { return row.name == "Host"; });
}

bool allocationLogFinished(std::string_view text) {
    return contains(text, "sched_reserve: reserve took") || contains(text, "llama_server: listening on") ||
           contains(text, "server is listening on") || contains(text, "exiting due to model loading error");
}

bool isHostBufferType(std::string_view bufferType) {
    // llama.cpp src/llama-model.cpp make_cpu_buft_list: CPU, CPU_Mapped, CPU_REPACK (and other CPU
    // extra types), the GPU backends' pinned host buffers (CUDA_Host, Vulkan_Host) and BLAS are host memory.
    return startsWith(bufferType, "CPU") || endsWith(bufferType, "_Host") || bufferType == "BLAS";
}

std::string deviceOfBufferType(std::string_view bufferType) {
    if (isHostBufferType(bufferType)) {
        return "CPU";
    }
    for (const std::string_view suffix : {"_Mapped", "_REPACK"}) {
        if (endsWith(bufferType, suffix)) {
            bufferType.remove_suffix(suffix.size());
        }
    }
    return std::string(bufferType);
}

} // namespace llamafit
