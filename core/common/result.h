#pragma once
// Result<T>: a value or a named Error, returned at every module edge of the core.
// No exception crosses a library boundary; callers branch on ok() and tests assert
// error().code, a stable kebab-case identifier such as "gguf.bad-magic". What an error
// is about (the llama-server flag, the settings) is data too, so no caller ever reads the
// message to decide anything: the message is for people only.

#include "core/common/setting.h"

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace llamafit {

struct Error {
    std::string code;    // stable identifier, "<module>.<what>", asserted by tests and printed by the CLI
    std::string message; // for people: names the value and the limit
    // The structured subject: the settings the error is about, first the one to change
    // ({CacheTypeV, FlashAttention} for "quantized V needs flash attention"), and the
    // command-line flag as the user spelled it ("-ctk", "--alias"), when it came from one.
    std::vector<Setting> settings;
    std::string flag;
    bool operator==(const Error&) const = default;
};

template <typename T> class [[nodiscard]] Result {
  public:
    Result(T value) : m_state(std::move(value)) {}
    Result(Error error) : m_state(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return std::get<T>(m_state); }
    T& value() & { return std::get<T>(m_state); }
    T&& value() && { return std::get<T>(std::move(m_state)); }
    const T& operator*() const& { return value(); }
    T& operator*() & { return value(); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }

    const Error& error() const { return std::get<Error>(m_state); }

  private:
    std::variant<T, Error> m_state;
};

inline Error makeError(std::string code, std::string message) {
    return Error{std::move(code), std::move(message), {}, {}};
}

// An error about settings (and, where it came from the command line, the flag spelled).
inline Error makeError(std::string code, std::string message, std::vector<Setting> settings,
                       std::string flag = {}) {
    return Error{std::move(code), std::move(message), std::move(settings), std::move(flag)};
}

} // namespace llamafit
