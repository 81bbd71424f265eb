#pragma once
// RingBuffer<T>: a fixed-capacity series of timestamped samples; pushing into a full buffer
// drops the oldest. Backs the live device chart (core/system/devicesampler) and the
// launcher's metric history, so plots keep a sliding window in bounded memory (the
// qBittorrent speed-graph idea). Header-only, no Qt, no locking: one owner thread writes
// and reads; copy it to hand a snapshot to another thread. Time is the caller's clock
// (std::chrono::steady_clock by default); the buffer never reads a clock itself.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace llamafit {

template <typename T, typename Clock = std::chrono::steady_clock> class RingBuffer {
  public:
    using TimePoint = typename Clock::time_point;

    struct Entry {
        TimePoint time;
        T value;
        bool operator==(const Entry&) const = default;
    };

    // A capacity of 0 is taken as 1: a buffer that can hold nothing would make latest() invalid.
    explicit RingBuffer(std::size_t capacity) : m_capacity(std::max<std::size_t>(capacity, 1)) {
        m_entries.reserve(m_capacity);
    }

    std::size_t capacity() const { return m_capacity; }
    std::size_t size() const { return m_entries.size(); }
    bool empty() const { return m_entries.empty(); }
    bool full() const { return m_entries.size() == m_capacity; }
    // Every push since construction or clear(), dropped ones included: a reader that remembers
    // it can tell whether anything arrived since it last looked.
    std::uint64_t pushedCount() const { return m_pushed; }

    void push(TimePoint time, T value) {
        ++m_pushed;
        if (!full()) {
            m_entries.push_back(Entry{time, std::move(value)});
            return;
        }
        m_entries[m_head] = Entry{time, std::move(value)};
        m_head = (m_head + 1) % m_capacity;
    }

    // index 0 is the oldest entry held; precondition: index < size().
    const Entry& at(std::size_t index) const { return m_entries[(m_head + index) % m_entries.size()]; }
    const Entry& oldest() const { return at(0); }
    const Entry& latest() const { return at(size() - 1); }

    // Oldest first.
    std::vector<Entry> entries() const {
        std::vector<Entry> ordered;
        ordered.reserve(size());
        for (std::size_t i = 0; i < size(); ++i) {
            ordered.push_back(at(i));
        }
        return ordered;
    }

    // The entries with time >= start, oldest first (a plot's sliding window). Assumes pushes come
    // in time order, as a sampler's do.
    std::vector<Entry> since(TimePoint start) const {
        std::vector<Entry> window;
        for (std::size_t i = 0; i < size(); ++i) {
            if (at(i).time >= start) {
                window.push_back(at(i));
            }
        }
        return window;
    }

    void clear() {
        m_entries.clear();
        m_head = 0;
        m_pushed = 0;
    }

  private:
    std::size_t m_capacity;
    std::vector<Entry> m_entries; // grows to m_capacity, then m_head marks the oldest
    std::size_t m_head = 0;
    std::uint64_t m_pushed = 0;
};

} // namespace llamafit
