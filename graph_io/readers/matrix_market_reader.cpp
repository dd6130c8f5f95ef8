#include <algorithm>
#include <chrono>
#include <string>

#include "graph_io/readers/file_text.hpp"
#include "graph_io/readers/line_parser.hpp"
#include "graph_io/readers/readers.hpp"

namespace sgnn::graph_io {

namespace {

enum class Field { Real, Integer, Pattern };

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Whitespace-separated words of a line (at most max_words kept, all counted).
std::size_t split_words(std::string_view line, std::string_view* words, std::size_t max_words) {
  std::size_t count = 0;
  std::size_t position = 0;
  for (;;) {
    position = line.find_first_not_of(" \t", position);
    if (position == std::string_view::npos) return count;
    std::size_t end = line.find_first_of(" \t", position);
    if (end == std::string_view::npos) end = line.size();
    if (count < max_words) words[count] = line.substr(position, end - position);
    ++count;
    position = end;
  }
}

struct Entries {
  std::vector<int32_t> source;
  std::vector<int32_t> target;
  std::vector<float> weight;
  int64_t file_entries = 0;  // lines read (a symmetric entry may give two edges)
};

// Next line of `text` from `position` (without "\n"/"\r\n"); false at the end.
bool next_line(std::string_view text, std::size_t& position, std::string_view& line) {
  if (position >= text.size()) return false;
  std::size_t end = text.find('\n', position);
  if (end == std::string_view::npos) end = text.size();
  line = text.substr(position, end - position);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  position = end + 1;
  return true;
}

}  // namespace

Dataset read_matrix_market(const std::filesystem::path& file) {
  const auto started = std::chrono::steady_clock::now();
  const std::string name = file.string();
  const FileText file_text = map_file_text(file);
  const std::string_view text = file_text.view();
  std::size_t position = 0;
  std::string_view line;
  if (!next_line(text, position, line) || trim_trailing_blank(line).empty()) throw IoError(name, 0, "empty file");

  // Banner: %%MatrixMarket matrix coordinate <field> <symmetry>
  std::string_view words[6];
  const std::size_t banner_words = split_words(line, words, 6);
  if (banner_words != 5 || lower(words[0]) != "%%matrixmarket" || lower(words[1]) != "matrix") {
    throw IoError(name, 1, "expected the banner \"%%MatrixMarket matrix coordinate <field> <symmetry>\"");
  }
  if (lower(words[2]) != "coordinate") {
    throw IoError(name, 1, detail::concat("format ", quoted(words[2]), " not supported: only sparse \"coordinate\" files hold graphs"));
  }
  const std::string field_word = lower(words[3]);
  Field field = Field::Real;
  if (field_word == "real" || field_word == "double") field = Field::Real;
  else if (field_word == "integer") field = Field::Integer;
  else if (field_word == "pattern") field = Field::Pattern;
  else throw IoError(name, 1, detail::concat("field ", quoted(words[3]), " not supported (real, integer or pattern)"));
  const std::string symmetry = lower(words[4]);
  if (symmetry != "general" && symmetry != "symmetric") {
    throw IoError(name, 1, detail::concat("symmetry ", quoted(words[4]), " not supported (general or symmetric)"));
  }
  const bool symmetric = symmetry == "symmetric";

  // Comments, then the size line "rows cols entries".
  int64_t line_number = 1;
  for (;;) {
    if (!next_line(text, position, line)) throw IoError(name, 0, "file ends before the size line \"rows cols entries\"");
    ++line_number;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] != '%') break;
  }
  int64_t rows = 0, cols = 0, declared = 0;
  try {
    std::string_view size_words[4];
    if (split_words(line, size_words, 4) != 3) throw LineError{detail::concat("expected \"rows cols entries\", got ", quoted(line))};
    rows = parse_integer(size_words[0], "row count");
    cols = parse_integer(size_words[1], "column count");
    declared = parse_integer(size_words[2], "entry count");
    if (rows < 0 || cols < 0 || declared < 0) throw LineError{"negative size"};
    if (rows != cols) throw LineError{detail::concat("matrix is ", rows, " x ", cols, ": a graph's adjacency must be square")};
    if (rows >= INT32_MAX) throw LineError{detail::concat("row count ", rows, " overflows the index type (int32)")};
  } catch (const LineError& error) {
    throw IoError(name, line_number, error.reason);
  }

  const std::size_t wanted = field == Field::Pattern ? 2 : 3;
  const std::string limit = detail::concat("the matrix size ", rows);
  auto parse_id = [&](std::string_view token, const char* what) {
    const int64_t value = parse_integer(token, what);
    if (value < 1) throw LineError{detail::concat(what, " ", value, " out of range: Matrix Market ids start at 1")};
    if (value > rows) throw LineError{detail::concat(what, " ", value, " > ", limit)};
    return static_cast<int32_t>(value - 1);
  };
  const auto chunks = parse_lines_parallel<Entries>(
      text.substr(std::min(position, text.size())), name,
      [&](std::string_view entry_line, Entries& entries) {
        std::string_view fields[4];
        const std::size_t count = split_words(entry_line, fields, 4);
        if (count != wanted) {
          throw LineError{detail::concat("expected ", wanted, " fields (", wanted == 2 ? "row col" : "row col value",
                                         "), got ", count, ": ", quoted(entry_line))};
        }
        const int32_t row = parse_id(fields[0], "row");
        const int32_t col = parse_id(fields[1], "column");
        if (symmetric && col > row) {
          throw LineError{detail::concat("entry (", row + 1, ", ", col + 1,
                                         ") above the diagonal in a symmetric file (only the lower triangle is stored)")};
        }
        float value = 1.0f;
        if (field == Field::Integer) {
          const int64_t integer = parse_integer(fields[2], "value");
          value = static_cast<float>(integer);
        } else if (field == Field::Real) {
          value = parse_finite_float(fields[2], "value");
        }
        ++entries.file_entries;
        // A[row, col] is the edge col -> row.
        entries.source.push_back(col);
        entries.target.push_back(row);
        if (field != Field::Pattern) entries.weight.push_back(value);
        if (symmetric && row != col) {
          entries.source.push_back(row);
          entries.target.push_back(col);
          if (field != Field::Pattern) entries.weight.push_back(value);
        }
      },
      line_number + 1);

  const int64_t file_entries = total_over(chunks, [](const Entries& c) { return c.file_entries; });
  if (file_entries != declared) {
    throw IoError(name, file_entries < declared ? 0 : line_number + declared + 1,
                  detail::concat("has ", file_entries, " entries but the size line (line ", line_number, ") says ", declared));
  }

  Dataset dataset;
  dataset.name = file.stem().string();
  if (dataset.name.ends_with(".mtx")) dataset.name.resize(dataset.name.size() - 4);
  dataset.source = name;
  const int64_t e = total_over(chunks, [](const Entries& c) { return c.source.size(); });
  dataset.edges.num_nodes = rows;
  dataset.edges.source = Tensor::empty({e}, DType::Int32);
  dataset.edges.target = Tensor::empty({e}, DType::Int32);
  gather_into(chunks, &Entries::source, dataset.edges.source.data<int32_t>());
  gather_into(chunks, &Entries::target, dataset.edges.target.data<int32_t>());
  if (field != Field::Pattern) {
    dataset.edges.weight = Tensor::empty({e}, DType::Float32);
    gather_into(chunks, &Entries::weight, dataset.edges.weight.data<float>());
  }
  dataset.read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return dataset;
}

}  // namespace sgnn::graph_io
