// Fast, strict parsing of numeric text files, shared by every text reader.
//
// parse_lines_parallel cuts the text at line boundaries into chunks parsed
// by OpenMP threads; a line handler fills the chunk's own State and throws
// LineError for a bad line. The error on the earliest line wins and becomes
// IoError(file, line, reason), so the message is the same at any thread count.
// Numbers are parsed with std::from_chars: no locale, no iostreams.
//
// parse_rows_parallel is its form for files of one record per line (edge.csv,
// node-feat.csv): the lines of each chunk are counted first, so every row is
// parsed straight into its place in the output (no per-chunk vectors to grow
// and gather), and a row parser can walk the text with one pointer, handing a
// line to the strict per-line parser only when its fast path meets anything
// unusual.
#pragma once

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sgnn::graph_io {

// Thrown by a line handler: the reason a line is bad (file and line are added).
struct LineError {
  std::string reason;
};

// `token` quoted and shortened for an error message.
inline std::string quoted(std::string_view token) {
  constexpr std::size_t kMax = 40;
  if (token.size() > kMax) return detail::concat('"', token.substr(0, kMax), "...\"");
  return detail::concat('"', token, '"');
}

// Parses a whole token as a decimal integer; LineError names `what` when it is
// not one or does not fit in int64.
inline int64_t parse_integer(std::string_view token, const char* what) {
  int64_t value = 0;
  const char* first = token.data();
  const char* last = first + token.size();
  if (first != last && *first == '+') ++first;  // from_chars refuses a leading '+'
  const auto [end, error] = std::from_chars(first, last, value);
  if (error == std::errc::result_out_of_range) {
    throw LineError{detail::concat(what, " ", quoted(token), " overflows the index type")};
  }
  if (error != std::errc() || end != last || first == last) {
    throw LineError{detail::concat("expected an integer ", what, ", got ", quoted(token))};
  }
  return value;
}

// Parses an integer id that must lie in [0, limit); `limit_source` says where
// the limit comes from ("num_nodes 2708 from num-node-list.csv").
inline int32_t parse_index(std::string_view token, const char* what, int64_t limit, const std::string& limit_source) {
  const int64_t value = parse_integer(token, what);
  if (value < 0) throw LineError{detail::concat(what, " ", value, " is negative")};
  if (value > INT32_MAX) throw LineError{detail::concat(what, " ", value, " overflows the index type (int32)")};
  if (value >= limit) throw LineError{detail::concat(what, " ", value, " >= ", limit_source)};
  return static_cast<int32_t>(value);
}

// Parses a whole token as a finite float32.
inline float parse_finite_float(std::string_view token, const char* what) {
  float value = 0.0f;
  const char* first = token.data();
  const char* last = first + token.size();
  if (first != last && *first == '+') ++first;
  const auto [end, error] = std::from_chars(first, last, value);
  if (error == std::errc::result_out_of_range) {
    // Underflow to a denormal/zero is harmless; overflow is not.
    double wide = 0.0;
    const auto [wide_end, wide_error] = std::from_chars(first, last, wide);
    if (wide_error == std::errc() && wide_end == last && std::abs(wide) < 1.0) return 0.0f;
    throw LineError{detail::concat(what, " ", quoted(token), " is out of float32 range")};
  }
  if (error != std::errc() || end != last || first == last) {
    throw LineError{detail::concat("expected a number as ", what, ", got ", quoted(token))};
  }
  if (!std::isfinite(value)) throw LineError{detail::concat(what, " ", quoted(token), " is not finite")};
  return value;
}

// Splits `line` at `separator` into at most `max_fields` views; returns the
// number of fields (more than max_fields means "too many").
inline std::size_t split_fields(std::string_view line, char separator, std::string_view* fields, std::size_t max_fields) {
  std::size_t count = 0;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = line.find(separator, begin);
    const std::string_view field = line.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    if (count < max_fields) fields[count] = field;
    ++count;
    if (end == std::string_view::npos) return count;
    begin = end + 1;
  }
}

// Text without trailing blank lines and spaces: a final newline (or several)
// is not an empty record.
inline std::string_view trim_trailing_blank(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ' || text[end - 1] == '\t')) {
    --end;
  }
  return text.substr(0, end);
}

// A State may have `void reserve(std::size_t chunk_bytes, std::string_view
// first_line)`: called once per chunk so it can size its vectors up front
// (growing vectors by doubling costs more than the parsing itself).
template <typename State>
void reserve_state(State& state, std::size_t chunk_bytes, std::string_view first_line) {
  if constexpr (requires { state.reserve(chunk_bytes, first_line); }) state.reserve(chunk_bytes, first_line);
}

// Lines a chunk of `chunk_bytes` holds if its lines are as long as `first_line` (+10% slack).
inline std::size_t estimated_lines(std::size_t chunk_bytes, std::string_view first_line) {
  return chunk_bytes / (first_line.size() + 1) * 11 / 10 + 16;
}

// Chunk boundaries of `text` (non-empty): chunk c is text[starts[c],
// starts[c + 1]); each cut follows a '\n'. Chunks of at least 1 MiB, up to 8
// per thread, so dynamic scheduling evens out chunks that parse slowly.
inline std::vector<std::size_t> chunk_starts(std::string_view text) {
  constexpr std::size_t kMinChunk = std::size_t{1} << 20;
  const std::size_t threads = static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
  const std::size_t chunks = std::clamp<std::size_t>(text.size() / kMinChunk, 1, threads * 8);
  // Chunk c starts after the first newline at or after c * size / chunks.
  std::vector<std::size_t> starts(chunks + 1, text.size());
  starts[0] = 0;
  for (std::size_t c = 1; c < chunks; ++c) {
    const std::size_t newline = text.find('\n', std::max(starts[c - 1], c * (text.size() / chunks)));
    starts[c] = newline == std::string_view::npos ? text.size() : newline + 1;
  }
  return starts;
}

// Calls handle(line, state) for every line of `text` (without its "\n" or
// "\r\n"; text is taken up to its last non-blank character) and returns the
// chunks' states in file order. Throws IoError(file, line, reason) for the
// earliest line whose handler threw LineError (or any std::exception);
// `first_line` is the file line number of the text's first line.
template <typename State, typename Handler>
std::vector<State> parse_lines_parallel(std::string_view text, const std::string& file, const Handler& handle,
                                        int64_t first_line = 1) {
  text = trim_trailing_blank(text);
  if (text.empty()) return {};
  const std::vector<std::size_t> starts = chunk_starts(text);
  const std::size_t chunks = starts.size() - 1;
  std::vector<State> states(chunks);
  std::vector<int64_t> lines(chunks, 0);   // lines parsed (up to and excluding a failure)
  std::vector<std::optional<std::string>> failures(chunks);
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
  for (std::size_t c = 0; c < chunks; ++c) {
    std::size_t position = starts[c];
    const std::size_t end = starts[c + 1];
    try {
      if (position < end) {
        const std::size_t first_end = std::min(end, text.find('\n', position));
        reserve_state(states[c], end - position, text.substr(position, first_end - position));
      }
      while (position < end) {
        std::size_t newline = text.find('\n', position);
        if (newline == std::string_view::npos || newline > end) newline = end;
        std::string_view line = text.substr(position, newline - position);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        handle(line, states[c]);
        ++lines[c];
        position = newline + 1;
      }
    } catch (const LineError& error) {
      failures[c] = error.reason;
    } catch (const std::exception& error) {
      failures[c] = error.what();
    }
  }
  int64_t line_before = first_line - 1;
  for (std::size_t c = 0; c < chunks; ++c) {
    if (failures[c]) throw IoError(file, line_before + lines[c] + 1, *failures[c]);
    line_before += lines[c];
  }
  return states;
}

// Text of one record per line cut into chunks (as parse_lines_parallel cuts
// it), with the index of each chunk's first line.
struct RowChunks {
  std::string_view text;            // up to its last non-blank character
  std::vector<std::size_t> starts;  // chunk c is text[starts[c], starts[c + 1])
  std::vector<int64_t> first_row;   // chunk c's first line (0-based); back() is the line count
  int64_t rows() const { return first_row.back(); }
  std::size_t chunks() const { return starts.size() - 1; }
};

// Number of '\n' in [begin, end): byte counters per lane over blocks of up
// to 255 * 64 bytes, which the compiler turns into vector compares and adds
// (std::count widens every lane to 64 bits and runs ~4x slower).
inline int64_t count_newlines(const char* begin, const char* end) {
  constexpr std::size_t kLanes = 64;
  int64_t total = 0;
  while (static_cast<std::size_t>(end - begin) >= kLanes) {
    const std::size_t blocks = std::min<std::size_t>(static_cast<std::size_t>(end - begin) / kLanes, 255);
    unsigned char lanes[kLanes] = {};
    for (std::size_t b = 0; b < blocks; ++b, begin += kLanes) {
      for (std::size_t lane = 0; lane < kLanes; ++lane) {
        lanes[lane] = static_cast<unsigned char>(lanes[lane] + (begin[lane] == '\n'));
      }
    }
    for (const unsigned char lane : lanes) total += lane;
  }
  return total + std::count(begin, end, '\n');
}

// Cuts `text` into chunks and counts their lines (in parallel: a '\n' count
// runs at memory speed, and it faults in a mapped file's pages for the parse).
inline RowChunks cut_rows(std::string_view text) {
  RowChunks cut;
  cut.text = trim_trailing_blank(text);
  cut.starts = cut.text.empty() ? std::vector<std::size_t>{0} : chunk_starts(cut.text);
  const std::size_t chunks = cut.chunks();
  cut.first_row.assign(chunks + 1, 0);
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
  for (std::size_t c = 0; c < chunks; ++c) {
    const char* begin = cut.text.data() + cut.starts[c];
    const char* end = cut.text.data() + cut.starts[c + 1];
    // Every line ends with '\n' but the text's last one.
    const bool holds_last_line = begin < end && cut.starts[c + 1] == cut.text.size();
    cut.first_row[c + 1] = count_newlines(begin, end) + (holds_last_line ? 1 : 0);
  }
  for (std::size_t c = 0; c < chunks; ++c) cut.first_row[c + 1] += cut.first_row[c];
  return cut;
}

// The line starting at `begin` as parse_lines_parallel's handlers see it
// (without its "\n" or "\r\n"), and in `next` where the next line starts.
inline std::string_view line_at(const char* begin, const char* end, const char*& next) {
  const std::size_t size = begin < end ? static_cast<std::size_t>(end - begin) : 0;  // (GCC cannot see begin < end)
  const auto* newline = static_cast<const char*>(std::memchr(begin, '\n', size));
  next = newline == nullptr ? end : newline + 1;
  std::string_view line(begin, static_cast<std::size_t>((newline == nullptr ? end : newline) - begin));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Where the next line starts when `position` is at a line end ("\n", "\r\n"
// or the chunk's end); nullptr when it is not.
inline const char* after_line_end(const char* position, const char* end) {
  if (position == end) return end;
  if (*position == '\n') return position + 1;
  if (*position == '\r' && position + 1 < end && position[1] == '\n') return position + 2;
  return nullptr;
}

// Calls parse_row(begin, chunk_end, row) for every line of `cut`, chunks in
// parallel: parse_row parses the line starting at `begin` as row `row` and
// returns where the next line starts (past its '\n', or chunk_end). Throws
// IoError(file, first_line + row, reason) for the earliest row whose
// parse_row threw LineError (or any std::exception), as parse_lines_parallel.
template <typename ParseRow>
void parse_rows_parallel(const RowChunks& cut, const std::string& file, const ParseRow& parse_row,
                         int64_t first_line = 1) {
  struct Failure {
    int64_t row;
    std::string reason;
  };
  const std::size_t chunks = cut.chunks();
  std::vector<std::optional<Failure>> failures(chunks);
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
  for (std::size_t c = 0; c < chunks; ++c) {
    const char* position = cut.text.data() + cut.starts[c];
    const char* end = cut.text.data() + cut.starts[c + 1];
    int64_t row = cut.first_row[c];
    try {
      for (; position < end; ++row) {
        // A row parser that stopped short of a line end would write past the output.
        if (row == cut.first_row[c + 1]) throw std::logic_error("parse_rows_parallel: more rows than lines counted");
        position = parse_row(position, end, row);
      }
    } catch (const LineError& error) {
      failures[c] = Failure{row, error.reason};
    } catch (const std::exception& error) {
      failures[c] = Failure{row, error.what()};
    }
  }
  for (const std::optional<Failure>& failure : failures) {
    if (failure) throw IoError(file, first_line + failure->row, failure->reason);
  }
}

// Total of `count(state)` over the states.
template <typename State, typename Count>
int64_t total_over(const std::vector<State>& states, const Count& count) {
  int64_t total = 0;
  for (const State& state : states) total += static_cast<int64_t>(count(state));
  return total;
}

// Concatenates member vectors of the states (in order) into `destination`.
template <typename State, typename T>
void gather_into(const std::vector<State>& states, std::vector<T> State::*member, T* destination) {
  std::vector<std::size_t> offsets(states.size() + 1, 0);
  for (std::size_t c = 0; c < states.size(); ++c) offsets[c + 1] = offsets[c] + (states[c].*member).size();
#pragma omp parallel for schedule(static) if (states.size() > 1)
  for (std::size_t c = 0; c < states.size(); ++c) {
    std::copy((states[c].*member).begin(), (states[c].*member).end(), destination + offsets[c]);
  }
}

}  // namespace sgnn::graph_io
