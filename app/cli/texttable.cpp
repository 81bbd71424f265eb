// Padded plain-text tables; see texttable.h.

#include "app/cli/texttable.h"

#include <algorithm>
#include <ostream>

namespace llamafit {

TextTable::TextTable(std::vector<std::string> header, std::vector<Align> align) : m_align(std::move(align)) {
    m_align.resize(header.size(), Align::Left);
    m_rows.push_back(std::move(header));
}

void TextTable::addRow(std::vector<std::string> cells) {
    cells.resize(m_rows.front().size());
    m_rows.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out, const std::string& indent) const {
    const std::size_t columns = m_rows.front().size();
    std::vector<std::size_t> widths(columns, 0);
    for (const auto& row : m_rows) {
        for (std::size_t c = 0; c < columns; ++c) {
            widths[c] = std::max(widths[c], row[c].size());
        }
    }
    for (const auto& row : m_rows) {
        std::string line = indent;
        for (std::size_t c = 0; c < columns; ++c) {
            const std::size_t pad = widths[c] - row[c].size();
            const bool last = c + 1 == columns;
            if (m_align[c] == Align::Right) {
                line += std::string(pad, ' ') + row[c];
            } else {
                line += row[c] + (last ? "" : std::string(pad, ' '));
            }
            if (!last) {
                line += "  ";
            }
        }
        while (!line.empty() && line.back() == ' ') {
            line.pop_back();
        }
        out << line << "\n";
    }
}

} // namespace llamafit
