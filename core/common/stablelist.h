#pragma once
// StableList<T>: a growing list, indexed like a vector, whose elements never move once they are in
// it, so a reference to one stays valid while others are added (what a std::deque gives). The
// elements sit in chunks of a fixed size: an index is a shift and a mask away from its element,
// and every accessor is small enough for the compiler to inline where it is used.
//
// Who uses it: the sizing engine's compute graph (core/sizing/graph/computegraph.h), whose
// builders and scheduler hold references to tensors while they add more. It replaced a
// std::deque there: the deque's iterator arithmetic (operator+=, _M_set_node) is not inlined at
// -O2, and in a program that also links code built at -O0 (the test executables,
// tests/testexecutables.cmake) the linker may keep the -O0 copies of such shared inline
// functions for the whole program. In the sizing tests that was about 45 % of the time of an
// estimate from scratch. Header-only, a value type, no locking.

#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace llamafit {

template <typename T> class StableList {
  public:
    StableList() = default;
    StableList(const StableList& other) { append(other); }
    StableList& operator=(const StableList& other) {
        if (this != &other) {
            clear();
            append(other);
        }
        return *this;
    }
    StableList(StableList&& other) noexcept
        : m_chunks(std::move(other.m_chunks)), m_size(std::exchange(other.m_size, 0)) {}
    StableList& operator=(StableList&& other) noexcept {
        m_chunks = std::move(other.m_chunks);
        m_size = std::exchange(other.m_size, 0);
        return *this;
    }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    void clear() {
        m_chunks.clear();
        m_size = 0;
    }

    // Unchecked, like a vector's. The accessors are forced inline: an out-of-line copy is what the
    // linker may take from a -O0 object, as said above.
    [[gnu::always_inline]] const T& operator[](std::size_t i) const {
        return m_chunks.data()[i >> kChunkBits].data()[i & kChunkMask];
    }
    [[gnu::always_inline]] T& operator[](std::size_t i) {
        return m_chunks.data()[i >> kChunkBits].data()[i & kChunkMask];
    }
    // Checked: std::out_of_range past the end, as a vector's and a deque's at().
    [[gnu::always_inline]] const T& at(std::size_t i) const {
        if (i >= m_size) {
            throwOutOfRange(i);
        }
        return (*this)[i];
    }
    [[gnu::always_inline]] T& at(std::size_t i) {
        if (i >= m_size) {
            throwOutOfRange(i);
        }
        return (*this)[i];
    }

    void push_back(T value) {
        if ((m_size & kChunkMask) == 0) {
            m_chunks.emplace_back();
            m_chunks.back().reserve(kChunkSize); // never grows past it, so its elements stay put
        }
        m_chunks.back().push_back(std::move(value));
        ++m_size;
    }

    template <typename List, typename Value> class Iterator {
      public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = Value*;
        using reference = Value&;

        Iterator() = default;
        Iterator(List* list, std::size_t index) : m_list(list), m_index(index) {}
        reference operator*() const { return (*m_list)[m_index]; }
        pointer operator->() const { return &(*m_list)[m_index]; }
        Iterator& operator++() {
            ++m_index;
            return *this;
        }
        Iterator operator++(int) {
            Iterator before = *this;
            ++m_index;
            return before;
        }
        bool operator==(const Iterator& other) const { return m_index == other.m_index; }

      private:
        List* m_list = nullptr;
        std::size_t m_index = 0;
    };
    using iterator = Iterator<StableList, T>;
    using const_iterator = Iterator<const StableList, const T>;

    iterator begin() { return {this, 0}; }
    iterator end() { return {this, m_size}; }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, m_size}; }

  private:
    static constexpr std::size_t kChunkBits = 8;
    static constexpr std::size_t kChunkSize = std::size_t{1} << kChunkBits;
    static constexpr std::size_t kChunkMask = kChunkSize - 1;

    void append(const StableList& other) {
        for (const T& value : other) {
            push_back(value);
        }
    }
    [[noreturn]] static void throwOutOfRange(std::size_t i) {
        throw std::out_of_range("index " + std::to_string(i) + " is past the list's end");
    }

    std::vector<std::vector<T>> m_chunks;
    std::size_t m_size = 0;
};

} // namespace llamafit
