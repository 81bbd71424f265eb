// Reads allocdump.c's plan dumps; see plandump.h.
#include "tests/unit/sizing/plandump.h"

#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

namespace llamafit::test {
namespace {

using graph::BufferUsage;
using graph::TensorId;

Error badDump(const std::string& path, std::size_t line, const std::string& what) {
    return makeError("test.bad-plan-dump", path + ":" + std::to_string(line) + ": " + what);
}

BufferUsage usageFromNumber(int number) {
    // ggml_backend_buffer_usage: ANY 0, WEIGHTS 1, COMPUTE 2.
    return number == 1 ? BufferUsage::Weights : number == 2 ? BufferUsage::Compute : BufferUsage::Any;
}

// "T id L|N|X op type ne0..3 nb0..3 flags view view_offs buft usage host pinned n p0..pn-1 | slot:id ... |
// name"
Result<bool> readTensorLine(const std::string& path, std::size_t lineNumber, const std::string& line,
                            PlanDump& dump,
                            std::map<std::tuple<std::string, int, bool>, graph::BufferId>& buffers) {
    const std::size_t firstBar = line.find(" |");
    const std::size_t secondBar = line.find(" | ", firstBar + 2);
    if (firstBar == std::string::npos || secondBar == std::string::npos) {
        return badDump(path, lineNumber, "a tensor line without its two '|'");
    }
    std::istringstream fields(line.substr(0, firstBar));
    std::string tag, kind, op, type, buft;
    std::uint64_t id = 0;
    graph::Tensor tensor;
    std::int64_t view = -1;
    int usage = -1;
    int host = 0;
    fields >> tag >> id >> kind >> op >> type;
    for (std::int64_t& n : tensor.ne) {
        fields >> n;
    }
    for (std::uint64_t& n : tensor.nb) {
        fields >> n;
    }
    std::size_t paramCount = 0;
    fields >> tensor.flags >> view >> tensor.viewOffset >> buft >> usage >> host >> tensor.pinnedBackend >>
        paramCount;
    if (paramCount > tensor.opParams.size()) {
        return badDump(path, lineNumber, "more than 16 op parameters");
    }
    for (std::size_t p = 0; p < paramCount; ++p) {
        fields >> tensor.opParams[p];
    }
    if (!fields || id != dump.graph.tensors.size()) {
        return badDump(path, lineNumber, "a malformed tensor line");
    }
    const std::optional<graph::GgmlOp> parsedOp = graph::ggmlOpFromName(op);
    const std::optional<GgmlType> parsedType = ggmlTypeFromName(type);
    if (!parsedOp || !parsedType) {
        return badDump(path, lineNumber, "unknown op '" + op + "' or type '" + type + "'");
    }
    tensor.op = *parsedOp;
    tensor.type = *parsedType;
    tensor.viewSource = view < 0 ? graph::kNoTensor : static_cast<TensorId>(view);
    if (buft != "-") {
        const auto key = std::make_tuple(buft, usage, host != 0);
        auto found = buffers.find(key);
        if (found == buffers.end()) {
            dump.graph.buffers.push_back({buft, usageFromNumber(usage), host != 0});
            found = buffers.emplace(key, static_cast<graph::BufferId>(dump.graph.buffers.size() - 1)).first;
        }
        tensor.buffer = found->second;
    }
    std::istringstream sources(line.substr(firstBar + 2, secondBar - firstBar - 2));
    std::string source;
    while (sources >> source) {
        const std::size_t colon = source.find(':');
        const std::size_t slot = std::stoul(source.substr(0, colon));
        // "self": ggml_cast's result is its own second source.
        const std::string reference = source.substr(colon + 1);
        const std::int64_t sourceId =
            reference == "self" ? static_cast<std::int64_t>(id) : std::stoll(reference);
        if (slot >= graph::kMaxSources || sourceId < 0 || static_cast<std::uint64_t>(sourceId) > id) {
            return badDump(path, lineNumber, "a source that is not an earlier tensor: " + source);
        }
        tensor.sources[slot] = static_cast<TensorId>(sourceId);
    }
    tensor.name = line.substr(secondBar + 3);
    dump.graph.tensors.push_back(std::move(tensor));
    if (kind == "L") {
        dump.graph.leafs.push_back(static_cast<TensorId>(id));
    } else if (kind == "N") {
        dump.graph.nodes.push_back(static_cast<TensorId>(id));
    }
    return true;
}

} // namespace

Result<PlanDump> readPlanDump(const std::string& stem) {
    PlanDump dump;
    const std::string prePath = stem + ".pre";
    std::ifstream pre(prePath);
    if (!pre) {
        return makeError("test.bad-plan-dump", "cannot open " + prePath);
    }
    std::map<std::tuple<std::string, int, bool>, graph::BufferId> buffers;
    std::string line;
    std::size_t lineNumber = 0;
    while (std::getline(pre, line)) {
        ++lineNumber;
        if (line.rfind("BACKEND ", 0) == 0) {
            std::istringstream fields(line);
            std::string tag;
            int index = 0;
            int host = 0;
            DumpedBackend backend;
            fields >> tag >> index >> backend.name >> backend.bufferType >> host;
            backend.host = host != 0;
            dump.backends.push_back(std::move(backend));
        } else if (line.rfind("T ", 0) == 0) {
            if (Result<bool> read = readTensorLine(prePath, lineNumber, line, dump, buffers); !read) {
                return read.error();
            }
        } else if (!line.empty()) {
            return badDump(prePath, lineNumber, "an unknown line");
        }
    }
    // The post-split graph: "BUF b bytes", then "L|N index pointer backend ... pre#id".
    const std::string postPath = stem + ".post";
    std::ifstream post(postPath);
    if (!post) {
        return makeError("test.bad-plan-dump", "cannot open " + postPath);
    }
    dump.expectedBackend.assign(dump.graph.tensors.size(), -1);
    lineNumber = 0;
    while (std::getline(post, line)) {
        ++lineNumber;
        std::istringstream fields(line);
        std::string tag;
        fields >> tag;
        if (tag == "BUF") {
            std::size_t index = 0;
            std::uint64_t bytes = 0;
            fields >> index >> bytes;
            dump.expectedBufferBytes.resize(std::max(dump.expectedBufferBytes.size(), index + 1));
            dump.expectedBufferBytes[index] = bytes;
            continue;
        }
        if (tag != "L" && tag != "N") {
            return badDump(postPath, lineNumber, "an unknown line");
        }
        std::string index, pointer;
        int backend = -1;
        fields >> index >> pointer >> backend;
        const std::size_t mark = line.rfind(" pre#");
        if (!fields || mark == std::string::npos) {
            return badDump(postPath, lineNumber, "a graph line without its backend or pre# mark");
        }
        const std::int64_t preId = std::stoll(line.substr(mark + 5));
        if (preId >= static_cast<std::int64_t>(dump.expectedBackend.size())) {
            return badDump(postPath, lineNumber, "pre# beyond the graph");
        }
        if (preId >= 0) {
            dump.expectedBackend[static_cast<std::size_t>(preId)] = backend;
        }
    }
    return dump;
}

} // namespace llamafit::test
