#pragma once
// A plain-text table for llamafit-cli's human output: columns padded to their widest cell,
// numbers right-aligned, the last column left unpadded. Rows are strings; no colours.

#include <iosfwd>
#include <string>
#include <vector>

namespace llamafit {

class TextTable {
  public:
    enum class Align { Left, Right };

    explicit TextTable(std::vector<std::string> header, std::vector<Align> align = {});
    void addRow(std::vector<std::string> cells);
    void print(std::ostream& out, const std::string& indent = "  ") const;

  private:
    std::vector<std::vector<std::string>> m_rows; // header first
    std::vector<Align> m_align;
};

} // namespace llamafit
