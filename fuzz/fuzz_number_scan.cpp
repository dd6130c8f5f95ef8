// libFuzzer target, differential: the number fast paths of the row parsers
// (graph_io/readers/fast_number_scan.hpp) against the strict parsers they stand in
// for. Wherever a fast path answers, it must stop where std::from_chars stops
// and give the same bits (scan_float), or the id parse_index gives (scan_index);
// a disagreement aborts. Reads stay inside the bytes (AddressSanitizer).
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "graph_io/readers/fast_number_scan.hpp"
#include "graph_io/readers/line_parser.hpp"

namespace {

void check_float(const char* begin, const char* end) {
  float fast = 0.0f;
  float reference = 0.0f;
  const char* stop = sgnn::graph_io::scan_float(begin, end, fast);
  if (stop == nullptr) return;
  const auto [reference_stop, error] = std::from_chars(begin, end, reference);
  if (error != std::errc() || reference_stop != stop || std::memcmp(&fast, &reference, sizeof(float)) != 0) std::abort();
}

void check_index(const char* begin, const char* end, int64_t limit) {
  int32_t fast = 0;
  const char* stop = sgnn::graph_io::scan_index(begin, end, limit, fast);
  if (stop == nullptr) return;
  // The digits it read are a token the strict parser accepts with the same value.
  try {
    const int32_t strict = sgnn::graph_io::parse_index(std::string_view(begin, static_cast<std::size_t>(stop - begin)),
                                                       "id", limit, "limit");
    if (strict != fast || (stop < end && static_cast<unsigned>(*stop - '0') <= 9)) std::abort();
  } catch (const sgnn::graph_io::LineError&) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // An exact-size copy, so reading one byte past the end is caught.
  const std::unique_ptr<char[]> bytes(new char[size - 1]);
  std::memcpy(bytes.get(), data + 1, size - 1);
  const char* end = bytes.get() + (size - 1);
  const int64_t limit = data[0] < 128 ? int64_t{data[0]} * 1000 + 1 : int64_t{INT32_MAX};
  // Where the row parsers start a number: the first byte, and after each ',' or line end.
  for (const char* begin = bytes.get(); begin <= end; ++begin) {
    if (begin != bytes.get() && begin[-1] != ',' && begin[-1] != '\n') continue;
    check_float(begin, end);
    check_index(begin, end, limit);
  }
  return 0;
}
