// The row parsers of edge.csv and node-feat.csv (a fast path that walks the
// text, falling back to the strict per-line parser) and the file text they
// read (mapped, read from a pipe, or decompressed).
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <random>
#include <cstring>
#include <optional>
#include <thread>

#include "graph_io/readers/fast_number_scan.hpp"
#include "graph_io/readers/file_text.hpp"
#include "graph_io/readers/line_parser.hpp"
#include "graph_io/readers/ogb_reader.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::TempDir;

namespace {

// The strict parser's verdict on one token: its value, or the reason it is refused.
template <typename Parse>
auto strict_verdict(const Parse& parse) -> std::pair<decltype(parse()), std::string> {
  try {
    return {parse(), ""};
  } catch (const LineError& error) {
    return {{}, error.reason};
  }
}

// The IoError of `read` (the test fails when none is thrown).
template <typename Read>
IoError error_of(const Read& read) {
  try {
    read();
  } catch (const IoError& error) {
    return error;
  }
  FAIL("no IoError");
  return IoError("", 0, "");
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

}  // namespace

TEST_CASE("scan_float answers only with std::from_chars's value, near float midpoints too") {
  // Check `text`: when scan_float answers, std::from_chars must stop at the same place with the same bits.
  int64_t answered = 0;
  auto check = [&](const char* text) {
    const char* end = text + std::strlen(text);
    float fast = 0.0f, reference = 0.0f;
    const char* stop = scan_float(text, end, fast);
    if (stop == nullptr) return;
    ++answered;
    const auto [reference_stop, error] = std::from_chars(text, end, reference);
    INFO(text);
    REQUIRE(error == std::errc());
    REQUIRE(stop == reference_stop);
    REQUIRE(same_bits(fast, reference));
  };
  std::mt19937_64 random(20);
  char text[64];
  for (int i = 0; i < 20000; ++i) {
    // A random finite float (all exponents), written as writers do: shortest, %e and %f at several precisions.
    float value = 0.0f;
    const auto bits = static_cast<uint32_t>(random());
    std::memcpy(&value, &bits, sizeof(value));
    if (!std::isfinite(value)) continue;
    *std::to_chars(text, text + sizeof(text) - 1, value).ptr = '\0';
    check(text);
    for (int precision : {0, 3, 6, 8, 9, 12, 15, 17}) {
      std::snprintf(text, sizeof(text), "%.*e", precision, static_cast<double>(value));
      check(text);
      if (std::abs(value) < 1e9f && std::abs(value) > 1e-6f) {
        std::snprintf(text, sizeof(text), "%.*f", precision, static_cast<double>(value));
        check(text);
      }
    }
    // Decimals within a few double ulps of the midpoint between value and the next float: where the
    // double rounding of the fast path would go wrong if it did not refuse exact midpoints.
    const double midpoint = (static_cast<double>(value) + static_cast<double>(std::nextafter(value, INFINITY))) / 2;
    for (int precision : {13, 14, 15, 16}) {
      std::snprintf(text, sizeof(text), "%.*e", precision, midpoint);
      check(text);
    }
  }
  // Random digit strings: integer and fraction parts of 0 to 12 digits, leading zeros, exponents to +-30.
  for (int i = 0; i < 100000; ++i) {
    std::string number = random() % 2 ? "-" : "";
    for (auto n = random() % 13; n > 0; --n) number += static_cast<char>('0' + random() % 10);
    if (random() % 2) number += '.';
    for (auto n = random() % 13; n > 0; --n) number += static_cast<char>('0' + random() % (random() % 4 == 0 ? 1 : 10));
    if (random() % 3 == 0) {
      number += random() % 2 ? 'e' : 'E';
      number += std::to_string(static_cast<int>(random() % 61) - 30);
    }
    check(number.c_str());
  }
  CHECK(answered > 100000);  // the fast path does answer most of these
}

TEST_CASE("feature rows: the fast path gives the strict parser's value or error for every token") {
  const char* tokens[] = {"0", "-0", "+0", "1", "+1.5", "-2.25", ".5", "5.", "-.5", "1e3", "1E-3", "1.5e+3",
                          "0001.000", "16777217", "3.4028235e38", "3.4028236e38", "1e39", "-1e39", "1e-38", "1e-40",
                          "1.4e-45", "1e-46", "-1e-50", "123456789012345678901234567890",
                          "0.1000000000000000055511151231257827", "nan", "inf", "-inf", "infinity", "0x1p3", "1e",
                          "1e+", "--1", "+-1", "1.2.3", " 1", "1 ", "", "abc", "1f", "1\r2"};
  TempDir dir;
  for (const std::string token : tokens) {
    const auto [value, reason] = strict_verdict([&] { return parse_finite_float(token, "feature value"); });
    // Blanks at the end of a file are not data (the readers trim them).
    const auto [last_value, last_reason] =
        strict_verdict([&] { return parse_finite_float(trim_trailing_blank(token), "feature value"); });
    // The token between others, last before "\n" or "\r\n", and last in the file (after a row "1,1,1").
    struct Placement {
      std::string text;
      std::size_t value_index;  // of the token's value in the features
      int64_t line;
      float value;
      std::string reason;
    };
    const Placement placements[] = {{"0.5," + token + ",0.5\n2,2,2\n", 4, 2, value, reason},
                                    {"0.5,0.5," + token + "\n2,2,2\n", 5, 2, value, reason},
                                    {"0.5,0.5," + token + "\r\n2,2,2\n", 5, 2, value, reason},
                                    {"2,2,2\n0.5,0.5," + token, 8, 3, last_value, last_reason}};
    for (const Placement& placement : placements) {
      INFO("token \"" << token << "\" in " << placement.text);
      sgnn::testing::write_text(dir / "node-feat.csv", "1,1,1\n" + placement.text);
      if (placement.reason.empty()) {
        const std::vector<float> read = read_ogb_features(dir / "node-feat.csv", 3).to_vector<float>();
        CHECK(same_bits(read[placement.value_index], placement.value));
      } else {
        const IoError error = error_of([&] { read_ogb_features(dir / "node-feat.csv", 3); });
        CHECK(error.line() == placement.line);
        CHECK(error.reason() == placement.reason);
      }
    }
  }
}

TEST_CASE("edge rows: the fast path gives the strict parser's id or error for every token") {
  const char* tokens[] = {"0",  "3",          "+1",          "-0",         "01", "000000003", "0000000003", "4",
                          "-1", "2147483648", "99999999999", "1000000000", " 1", "1 ",        "",           "1.0",
                          "x",  "1\r2"};
  const std::string limit = "num_nodes 4 (given)";
  TempDir dir;
  for (const std::string token : tokens) {
    INFO("token \"" << token << "\"");
    struct Placement {
      std::string text;  // the token in line 2
      bool source;       // as the source id (else the target)
      std::string checked_token;  // what the strict parser sees: blanks at the end of a file are trimmed
    };
    const Placement placements[] = {{"0,1\n" + token + ",2\n3,3\n", true, token},
                                    {"0,1\n2," + token + "\r\n3,3\n", false, token},
                                    {"0,1\n2," + token, false, std::string(trim_trailing_blank(token))}};
    for (const Placement& placement : placements) {
      const char* what = placement.source ? "source node id" : "target node id";
      const auto [id, reason] = strict_verdict([&] { return parse_index(placement.checked_token, what, 4, limit); });
      sgnn::testing::write_text(dir / "edge.csv", placement.text);
      if (reason.empty()) {
        const EdgeList read = read_ogb_edges(dir / "edge.csv", 4);
        CHECK((placement.source ? read.source : read.target).to_vector<int32_t>()[1] == id);
      } else {
        const IoError error = error_of([&] { read_ogb_edges(dir / "edge.csv", 4); });
        CHECK(error.line() == 2);
        CHECK(error.reason() == reason);
      }
    }
  }
}

TEST_CASE("rows parsed in parallel chunks land in their rows, and the earliest bad line wins") {
  // 330000 lines of 10 or 11 bytes: 3 chunks of 1 MiB or more, at any thread count.
  constexpr int kLines = 330000;
  std::string edges;
  std::vector<int32_t> sources, targets;
  for (int i = 0; i < kLines; ++i) {
    sources.push_back(1000 + i % 9000);
    targets.push_back(1000 + (i * 7) % 9000);
    edges += std::to_string(sources.back()) + ',' + std::to_string(targets.back()) + (i % 3 == 0 ? "\r\n" : "\n");
  }
  REQUIRE(edges.size() >= 3 * (std::size_t{1} << 20));
  TempDir dir;
  sgnn::testing::write_text(dir / "edge.csv", edges);
  const EdgeList read = read_ogb_edges(dir / "edge.csv", 10000);
  CHECK(read.source.to_vector<int32_t>() == sources);
  CHECK(read.target.to_vector<int32_t>() == targets);

  // Line offsets of line 250001 (in the last chunk) and line 90001 (in the first).
  auto offset_of_line = [&](int line) {
    std::size_t offset = 0;
    for (int i = 1; i < line; ++i) offset = edges.find('\n', offset) + 1;
    return offset;
  };
  std::string late_error = edges;
  late_error.replace(offset_of_line(250001), 4, "10x0");
  sgnn::testing::write_text(dir / "edge.csv", late_error);
  IoError error = error_of([&] { read_ogb_edges(dir / "edge.csv", 10000); });
  CHECK(error.line() == 250001);
  CHECK(error.reason().find("expected an integer") != std::string::npos);
  std::string two_errors = late_error;
  two_errors.replace(offset_of_line(90001), 4, "1000000");  // id 1000000 >= num_nodes, earlier
  sgnn::testing::write_text(dir / "edge.csv", two_errors);
  error = error_of([&] { read_ogb_edges(dir / "edge.csv", 10000); });
  CHECK(error.line() == 90001);
  CHECK(error.reason().find(">= num_nodes 10000") != std::string::npos);

  // The same for feature rows "a,b\n" over several chunks.
  std::string features;
  for (int i = 0; i < kLines; ++i) features += std::to_string(i % 97) + ".25,-" + std::to_string(i % 13) + "\n";
  sgnn::testing::write_text(dir / "node-feat.csv", features);
  const std::vector<float> values = read_ogb_features(dir / "node-feat.csv", kLines).to_vector<float>();
  REQUIRE(values.size() == 2 * std::size_t{kLines});
  for (std::size_t i = 0; i < kLines; i += 997) {
    CHECK(values[2 * i] == static_cast<float>(i % 97) + 0.25f);
    CHECK(values[2 * i + 1] == -static_cast<float>(i % 13));
  }
  const std::size_t end_of_row = features.rfind('\n', features.size() - 20);  // a row near the end
  features.insert(end_of_row, ",1");
  sgnn::testing::write_text(dir / "node-feat.csv", features);
  error = error_of([&] { read_ogb_features(dir / "node-feat.csv", kLines); });
  const auto rows_before = std::count(features.begin(), features.begin() + static_cast<std::ptrdiff_t>(end_of_row), '\n');
  CHECK(error.line() == 1 + rows_before);
  CHECK(error.reason() == "row has 3 feature values, the rows before have 2");
}

TEST_CASE("a first feature row far wider than the file has room for is an error, not an allocation") {
  // 100000 values, then 100000 rows of one: 10^10 floats if the first row set the shape.
  std::string text;
  for (int i = 0; i < 100000; ++i) text += i == 0 ? "0" : ",0";
  text += '\n';
  for (int i = 0; i < 100000; ++i) text += "1\n";
  TempDir dir;
  sgnn::testing::write_text(dir / "node-feat.csv", text);
  const IoError error = error_of([&] { read_ogb_features(dir / "node-feat.csv", 100001); });
  CHECK(error.line() == 2);
  CHECK(error.reason() == "row has 1 feature values, the rows before have 100000");
  // A bad token on that line still comes first, as it does for any row.
  text[text.find('\n') + 1] = 'x';
  sgnn::testing::write_text(dir / "node-feat.csv", text);
  CHECK(error_of([&] { read_ogb_features(dir / "node-feat.csv", 100001); }).reason().find("expected a number") !=
        std::string::npos);
}

TEST_CASE("map_file_text: a plain file, gzip, an empty file, a byte order mark, and a pipe") {
  TempDir dir;
  sgnn::testing::write_text(dir / "plain.csv", "\xEF\xBB\xBF" "1,2\n");
  CHECK(map_file_text(dir / "plain.csv").view() == "1,2\n");
  sgnn::testing::write_gzip(dir / "packed.csv.gz", "3,4\n");
  CHECK(map_file_text(dir / "packed.csv.gz").view() == "3,4\n");
  sgnn::testing::write_text(dir / "empty.csv", "");
  CHECK(map_file_text(dir / "empty.csv").view().empty());
  // A copy keeps the text alive after the original goes.
  std::optional<FileText> original = map_file_text(dir / "plain.csv");
  const FileText copy = *original;
  original.reset();
  CHECK(copy.view() == "1,2\n");
  // A pipe cannot be mapped: it is read, once (a second open would wait for another writer).
  const std::filesystem::path fifo = dir / "pipe.csv";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string big;
  for (int i = 0; i < 200000; ++i) big += "5,6\n";  // more than a pipe's buffer
  std::thread writer([&] { sgnn::testing::write_text(fifo, big); });
  const FileText piped = map_file_text(fifo);
  writer.join();
  CHECK(piped.view() == big);
  CHECK_THROWS_WITH_AS(map_file_text(dir / "missing.csv"), doctest::Contains("file not found"), IoError);
  CHECK_THROWS_WITH_AS(map_file_text(dir.path()), doctest::Contains("is a directory"), IoError);
}
