#include "tests/support/shapegeometry.h"

#include "core/gguf/ggmltype.h"
#include "core/model/modelinterpreter.h"
#include "core/model/tensorshapechecks.h"
#include "tests/support/modelfiles.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace llamafit::test {
namespace {

using nlohmann::json;

Error badGeometry(const std::string& message) {
    return makeError("test.bad-geometry", message);
}

// "a*b + 2*c": integers, parameter names, + - * / and parentheses, evaluated in 64-bit
// unsigned arithmetic; a division must be exact (a width that is not whole is a wrong table).
class Expression {
  public:
    Expression(const std::string& text, const std::map<std::string, std::uint64_t>& values)
        : m_text(text), m_values(values) {}

    Result<std::uint64_t> evaluate() {
        const std::uint64_t value = sum();
        skipSpace();
        if (m_error.empty() && m_at != m_text.size()) {
            m_error = "unexpected '" + m_text.substr(m_at) + "'";
        }
        if (!m_error.empty()) {
            return badGeometry("expression \"" + m_text + "\": " + m_error);
        }
        return value;
    }

  private:
    void skipSpace() {
        while (m_at < m_text.size() && m_text[m_at] == ' ') {
            ++m_at;
        }
    }
    bool take(char c) {
        skipSpace();
        if (m_at < m_text.size() && m_text[m_at] == c) {
            ++m_at;
            return true;
        }
        return false;
    }
    std::uint64_t sum() {
        std::uint64_t value = product();
        while (m_error.empty()) {
            if (take('+')) {
                value += product();
            } else if (take('-')) {
                value -= product();
            } else {
                break;
            }
        }
        return value;
    }
    std::uint64_t product() {
        std::uint64_t value = factor();
        while (m_error.empty()) {
            if (take('*')) {
                value *= factor();
            } else if (take('/')) {
                const std::uint64_t divisor = factor();
                if (divisor == 0 || value % divisor != 0) {
                    m_error = std::to_string(value) + " / " + std::to_string(divisor) + " is not whole";
                    return 0;
                }
                value /= divisor;
            } else {
                break;
            }
        }
        return value;
    }
    std::uint64_t factor() {
        skipSpace();
        if (take('(')) {
            const std::uint64_t value = sum();
            if (!take(')')) {
                m_error = "missing ')'";
            }
            return value;
        }
        const std::size_t start = m_at;
        while (m_at < m_text.size() &&
               (std::isalnum(static_cast<unsigned char>(m_text[m_at])) != 0 || m_text[m_at] == '_')) {
            ++m_at;
        }
        const std::string word = m_text.substr(start, m_at - start);
        if (word.empty()) {
            m_error = "a number or a parameter expected at " + std::to_string(start);
            return 0;
        }
        if (std::isdigit(static_cast<unsigned char>(word.front())) != 0) {
            return std::stoull(word);
        }
        const auto it = m_values.find(word);
        if (it == m_values.end()) {
            m_error = "unknown parameter '" + word + "'";
            return 0;
        }
        return it->second;
    }

    std::string m_text;
    const std::map<std::string, std::uint64_t>& m_values;
    std::size_t m_at = 0;
    std::string m_error;
};

Result<std::uint64_t> evaluate(const std::string& text, const std::map<std::string, std::uint64_t>& values) {
    return Expression(text, values).evaluate();
}

// "blk.12.attn_q.weight" -> "blk.{i}.attn_q.weight"; other names unchanged.
std::string templateName(const std::string& name) {
    if (name.rfind("blk.", 0) != 0) {
        return name;
    }
    const std::size_t dot = name.find('.', 4);
    return dot == std::string::npos ? name : "blk.{i}" + name.substr(dot);
}

const std::vector<std::string>* dimensionsOf(const GeometryTable& table, const std::string& tensorName) {
    const std::string key = templateName(tensorName);
    for (const auto& [name, dimensions] : table.tensors) {
        if (name == key) {
            return &dimensions;
        }
    }
    return nullptr;
}

Result<GeometryTable> parseTable(const json& root, const std::string& architecture) {
    GeometryTable table;
    table.architecture = architecture;
    table.shapeStem = root.at("shape").get<std::string>();
    table.minBlocks = root.value("min_blocks", 1u);
    table.round = root.value("round", 0u);
    if (table.round == 0) {
        return badGeometry(architecture + ": no holdout round (\"round\": 1 or more)");
    }
    for (const auto& [name, value] : root.at("parameters").items()) {
        table.shapeParameters[name] = value.get<std::uint64_t>();
    }
    for (const auto& [key, expression] : root.at("keys").items()) {
        table.keys.emplace_back(key, expression.get<std::string>());
    }
    for (const auto& [name, dimensions] : root.at("tensors").items()) {
        table.tensors.emplace_back(name, dimensions.get<std::vector<std::string>>());
    }
    for (const json& entry : root.at("geometries")) {
        ShapeGeometry geometry;
        for (const auto& [name, value] : entry.items()) {
            if (name == "name") {
                geometry.name = value.get<std::string>();
            } else if (name == "source") {
                geometry.source = value.get<std::string>();
            } else if (name == "blocks") {
                geometry.blocks = value.get<std::uint32_t>();
            } else if (table.shapeParameters.count(name) == 0) {
                return badGeometry(architecture + ": geometry " + entry.value("name", "?") +
                                   " sets the unknown parameter '" + name + "'");
            } else {
                geometry.parameters[name] = value.get<std::uint64_t>();
            }
        }
        if (geometry.name.empty() || geometry.source.empty() || geometry.blocks == 0) {
            return badGeometry(architecture + ": a geometry without name, source or blocks");
        }
        for (const auto& [name, value] : table.shapeParameters) {
            if (geometry.parameters.count(name) == 0) {
                return badGeometry(architecture + ": geometry " + geometry.name + " does not set '" + name +
                                   "'");
            }
        }
        table.geometries.push_back(std::move(geometry));
    }
    return table;
}

// The table must describe its shape: the shape's own parameters give back every listed key and
// every tensor dimension, and every tensor is listed.
Result<bool> checkAgainstShape(const GeometryTable& table, const ModelSpec& spec) {
    const std::string where = table.architecture + " (tests/data/holdout): ";
    for (const auto& [key, expression] : table.keys) {
        const GgufValue* value = spec.file.find(key);
        if (value == nullptr) {
            return badGeometry(where + "the shape has no key " + key);
        }
        const auto expected = evaluate(expression, table.shapeParameters);
        if (!expected) {
            return badGeometry(where + key + ": " + expected.error().message);
        }
        const GgufArray* array = value->array();
        const auto scalar = spec.file.getUint(key);
        const auto elements = spec.file.getIntArray(key);
        const bool matches =
            array ? elements &&
                        std::any_of(elements->begin(), elements->end(),
                                    [&](std::int64_t e) { return e == static_cast<std::int64_t>(*expected); })
                  : scalar && *scalar == *expected;
        if (!matches) {
            return badGeometry(where + key + " = \"" + expression + "\" gives " + std::to_string(*expected) +
                               " with the shape's parameters, which the shape does not have");
        }
    }
    for (const GgufTensorInfo& tensor : spec.file.tensors) {
        const std::vector<std::string>* dimensions = dimensionsOf(table, tensor.name);
        if (dimensions == nullptr) {
            return badGeometry(where + "the tensor " + templateName(tensor.name) + " is not listed");
        }
        if (dimensions->size() != tensor.dimensionCount) {
            return badGeometry(where + templateName(tensor.name) + " has " +
                               std::to_string(tensor.dimensionCount) + " dimensions, the table lists " +
                               std::to_string(dimensions->size()));
        }
        for (std::size_t d = 0; d < dimensions->size(); ++d) {
            const auto value = evaluate((*dimensions)[d], table.shapeParameters);
            if (!value || *value != tensor.shape[d]) {
                return badGeometry(where + templateName(tensor.name) + " dimension " + std::to_string(d) +
                                   " \"" + (*dimensions)[d] + "\" is not the shape's " +
                                   std::to_string(tensor.shape[d]));
            }
        }
    }
    return true;
}

} // namespace

std::vector<std::string> geometryTableFiles() {
    std::vector<std::string> files;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(LLAMAFIT_HOLDOUT_DIR, error)) {
        if (entry.is_regular_file() && entry.path().extension() == ".json") {
            files.push_back(entry.path().string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

Result<GeometryTable> loadGeometryTable(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return makeError("test.read-failed", "cannot open " + path);
    }
    const std::string architecture = std::filesystem::path(path).stem().string();
    Result<GeometryTable> table = badGeometry(path + ": not read");
    try {
        table = parseTable(json::parse(in), architecture);
    } catch (const json::exception& exception) {
        return badGeometry(path + ": " + exception.what());
    }
    if (!table) {
        return table;
    }
    const auto spec = loadShape(table->shapeStem);
    if (!spec) {
        return spec.error();
    }
    if (const auto checked = checkAgainstShape(*table, *spec); !checked) {
        return checked.error();
    }
    // Every geometry must give a spec the core reads as llama.cpp's loader would.
    for (const ShapeGeometry& geometry : table->geometries) {
        if (const auto reshaped = reshapeSpec(*spec, *table, geometry); !reshaped) {
            return reshaped.error();
        }
    }
    return table;
}

const Result<std::vector<GeometryTable>>& geometryTables() {
    static const Result<std::vector<GeometryTable>> tables = []() -> Result<std::vector<GeometryTable>> {
        std::vector<GeometryTable> loaded;
        for (const std::string& path : geometryTableFiles()) {
            auto table = loadGeometryTable(path);
            if (!table) {
                return table.error();
            }
            loaded.push_back(std::move(*table));
        }
        if (loaded.empty()) {
            return badGeometry(std::string("no tables in ") + LLAMAFIT_HOLDOUT_DIR);
        }
        return loaded;
    }();
    return tables;
}

void forEachHoldoutCase(std::span<const HoldoutRound> rounds, const std::vector<GeometryTable>& tables,
                        const std::function<void(std::uint32_t, std::size_t, std::uint32_t,
                                                 const std::vector<GeometryTable>&)>& draw) {
    std::uint32_t index = 0;
    for (const HoldoutRound& round : rounds) {
        std::vector<GeometryTable> roundTables;
        std::copy_if(tables.begin(), tables.end(), std::back_inserter(roundTables),
                     [&](const GeometryTable& table) { return table.round == round.round; });
        if (roundTables.empty()) {
            continue;
        }
        const std::uint32_t counts[] = {round.cpuCases, round.vulkanCases, round.rpcCases};
        for (std::size_t backend = 0; backend < 3; ++backend) {
            for (std::uint32_t position = 0; position < counts[backend]; ++position, ++index) {
                draw(index, backend, position, roundTables);
            }
        }
    }
}

Result<ModelSpec> reshapeSpec(const ModelSpec& spec, const GeometryTable& table,
                              const ShapeGeometry& geometry) {
    const std::string where = table.architecture + "/" + geometry.name + ": ";
    ModelSpec out = spec;
    out.id = spec.id + "@" + geometry.name;
    out.source = geometry.source + " widths on the shape " + spec.id;
    GgufFile& file = out.file;
    for (const auto& [key, expression] : table.keys) {
        const auto oldValue = evaluate(expression, table.shapeParameters);
        const auto newValue = evaluate(expression, geometry.parameters);
        if (!oldValue || !newValue) {
            return badGeometry(where + key + ": " + (oldValue ? newValue : oldValue).error().message);
        }
        for (auto& [name, value] : file.metadata) {
            if (name != key) {
                continue;
            }
            if (const GgufArray* array = value.array()) {
                // Per-layer arrays (head_count_kv of a hybrid: 0 for recurrent layers): the
                // elements that held the shape's value get the geometry's.
                GgufArray rewritten(array->elementType());
                for (std::size_t i = 0; i < array->size(); ++i) {
                    const GgufValue element = array->elementAt(i);
                    const auto* number = std::get_if<std::uint64_t>(&element.data);
                    const auto* signedNumber = std::get_if<std::int64_t>(&element.data);
                    const bool isOld =
                        (number && *number == *oldValue) ||
                        (signedNumber && *signedNumber == static_cast<std::int64_t>(*oldValue));
                    if (isOld) {
                        rewritten.appendUint(*newValue);
                    } else {
                        rewritten.append(element);
                    }
                }
                value = GgufValue::fromArray(std::move(rewritten));
            } else {
                value = GgufValue::fromUint(*newValue, value.type);
            }
        }
    }
    for (GgufTensorInfo& tensor : file.tensors) {
        const std::vector<std::string>* dimensions = dimensionsOf(table, tensor.name);
        if (dimensions == nullptr || dimensions->size() != tensor.dimensionCount) {
            return badGeometry(where + "the tensor " + templateName(tensor.name) + " is not listed with " +
                               std::to_string(tensor.dimensionCount) + " dimensions");
        }
        for (std::size_t d = 0; d < dimensions->size(); ++d) {
            const auto value = evaluate((*dimensions)[d], geometry.parameters);
            if (!value || *value == 0) {
                return badGeometry(where + templateName(tensor.name) + ": " +
                                   (value ? "a dimension of 0" : value.error().message));
            }
            tensor.shape[d] = *value;
        }
        if (!ggmlRowDivisible(tensor.type, tensor.shape[0])) {
            tensor.type = ggmlRowDivisible(GgmlType::Q8_0, tensor.shape[0]) ? GgmlType::Q8_0 : GgmlType::F16;
        }
        tensor.bytes =
            ggmlRowBytes(tensor.type, tensor.shape[0]) * tensor.shape[1] * tensor.shape[2] * tensor.shape[3];
    }
    if (const auto vocabulary = geometry.parameters.find("vocab"); vocabulary != geometry.parameters.end()) {
        out.vocabularySize = static_cast<std::uint32_t>(vocabulary->second);
    }
    layOutOffsets(file);
    file.rebuildIndex();

    const auto model = interpretModel(file);
    if (!model) {
        return makeError(model.error().code, where + model.error().message);
    }
    if (const auto shapes = checkTensorShapes(file, *model, out.vocabularySize); !shapes) {
        return makeError(shapes.error().code, where + shapes.error().message);
    }
    return out;
}

Result<ModelSpec> reshapeToGeometry(const ModelSpec& spec, const std::string& geometryId) {
    const auto& tables = geometryTables();
    if (!tables) {
        return tables.error();
    }
    const std::size_t slash = geometryId.find('/');
    const std::string architecture = geometryId.substr(0, slash);
    const std::string name = slash == std::string::npos ? std::string() : geometryId.substr(slash + 1);
    for (const GeometryTable& table : *tables) {
        if (table.architecture != architecture) {
            continue;
        }
        for (const ShapeGeometry& geometry : table.geometries) {
            if (geometry.name == name) {
                return reshapeSpec(spec, table, geometry);
            }
        }
    }
    return badGeometry("no geometry " + geometryId + " in " + LLAMAFIT_HOLDOUT_DIR);
}

std::uint32_t mostCutBlocks(const GeometryTable& table, const ShapeGeometry& geometry,
                            const Result<ModelSpec>& shape) {
    const std::uint32_t shapeBlocks =
        shape ? static_cast<std::uint32_t>(
                    shape->file
                        .getUint(shape->file.getString("general.architecture").value_or("") + ".block_count")
                        .value_or(1))
              : 1;
    return std::max(table.minBlocks, std::min(geometry.blocks, shapeBlocks));
}

} // namespace llamafit::test
