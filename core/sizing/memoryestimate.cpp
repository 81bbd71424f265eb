// ComponentBytes helpers: address a component by its enum (charts and tables iterate them).
#include "core/sizing/memoryestimate.h"

namespace llamafit {
namespace {

std::uint64_t* field(ComponentBytes& bytes, Component c) {
    switch (c) {
    case Component::Model:
        return &bytes.modelBytes;
    case Component::Kv:
        return &bytes.kvBytes;
    case Component::Rs:
        return &bytes.rsBytes;
    case Component::Output:
        return &bytes.outputBytes;
    case Component::Compute:
        return &bytes.computeBytes;
    case Component::Overhead:
        return &bytes.overheadBytes;
    }
    return nullptr;
}

} // namespace

std::uint64_t ComponentBytes::get(Component c) const {
    ComponentBytes copy = *this; // six integers: cheaper to copy than to duplicate the switch
    const std::uint64_t* value = field(copy, c);
    return value != nullptr ? *value : 0;
}

void ComponentBytes::add(Component c, std::uint64_t bytes) {
    if (std::uint64_t* value = field(*this, c)) {
        *value += bytes;
    }
}

ComponentBytes& ComponentBytes::operator+=(const ComponentBytes& other) {
    modelBytes += other.modelBytes;
    kvBytes += other.kvBytes;
    rsBytes += other.rsBytes;
    outputBytes += other.outputBytes;
    computeBytes += other.computeBytes;
    overheadBytes += other.overheadBytes;
    return *this;
}

std::string_view componentName(Component component) {
    switch (component) {
    case Component::Model:
        return "model";
    case Component::Kv:
        return "kv";
    case Component::Rs:
        return "rs";
    case Component::Output:
        return "output";
    case Component::Compute:
        return "compute";
    case Component::Overhead:
        break;
    }
    return "overhead";
}

std::string_view bufferOwnerName(BufferOwner owner) {
    switch (owner) {
    case BufferOwner::MtpDraft:
        return "mtp-draft";
    case BufferOwner::LoraAdapter:
        return "lora";
    case BufferOwner::DraftModel:
        return "draft-model";
    case BufferOwner::Projector:
        return "mmproj";
    case BufferOwner::Main:
        break;
    }
    return "main";
}

} // namespace llamafit
