#include "core/gguf/ggufvalue.h"

namespace llamafit {

bool GgufArray::operator==(const GgufArray& other) const {
    return elementType == other.elementType && elements == other.elements;
}

bool GgufValue::operator==(const GgufValue& other) const {
    if (type != other.type || data.index() != other.data.index()) {
        return false;
    }
    if (const auto* array = std::get_if<std::shared_ptr<GgufArray>>(&data)) {
        const auto& otherArray = std::get<std::shared_ptr<GgufArray>>(other.data);
        if (!*array || !otherArray) {
            return *array == otherArray;
        }
        return **array == *otherArray;
    }
    return data == other.data;
}

GgufValue GgufValue::fromUint(std::uint64_t v, GgufValueType t) { return GgufValue{t, v}; }
GgufValue GgufValue::fromInt(std::int64_t v, GgufValueType t) { return GgufValue{t, v}; }
GgufValue GgufValue::fromFloat(double v, GgufValueType t) { return GgufValue{t, v}; }
GgufValue GgufValue::fromBool(bool v) { return GgufValue{GgufValueType::Bool, v}; }
GgufValue GgufValue::fromString(std::string v) { return GgufValue{GgufValueType::String, std::move(v)}; }
GgufValue GgufValue::fromArray(GgufArray array) {
    return GgufValue{GgufValueType::Array, std::make_shared<GgufArray>(std::move(array))};
}

} // namespace llamafit
