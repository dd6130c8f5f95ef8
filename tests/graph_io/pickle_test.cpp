#include "graph_io/readers/pickle.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "graph_io/readers/pickle_numpy.hpp"
#include "tests/graph_io/pickle_bytes.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using pickle::Kind;
using sgnn::testing::PickleBytes;

namespace {

const std::string kName = "test.pickle";

// A string literal's bytes, NULs included.
template <std::size_t N>
std::string b(const char (&text)[N]) {
  return std::string(text, N - 1);
}

// The IoError that parsing `bytes` throws (the test fails when none is thrown).
IoError parse_error(const std::string& bytes, const pickle::Limits& limits = {}) {
  try {
    pickle::parse(bytes, kName, limits);
  } catch (const IoError& error) {
    return error;
  }
  FAIL("no IoError parsing " << bytes.size() << " bytes");
  return IoError("", 0, "");
}

void check_error(const IoError& error, const std::string& reason_part) {
  INFO(error.what());
  CHECK(error.file() == kName);
  CHECK(error.line() == 0);
  CHECK(error.reason().find(reason_part) != std::string::npos);
}

template <typename Check>
IoError numpy_error(const std::string& bytes, const Check& check) {
  const pickle::Document document = pickle::parse(bytes, kName);
  try {
    check(document.root());
  } catch (const IoError& error) {
    return error;
  }
  FAIL("no IoError converting " << bytes.size() << " bytes");
  return IoError("", 0, "");
}

IoError ndarray_error(const std::string& bytes) {
  return numpy_error(bytes, [](const pickle::Value& root) { pickle::as_ndarray(root, kName, "a"); });
}

IoError csr_error(const std::string& bytes) {
  return numpy_error(bytes, [](const pickle::Value& root) { pickle::as_csr_matrix(root, kName, "m"); });
}

std::vector<float> densified(const std::string& bytes, std::vector<int64_t> row_of) {
  const pickle::Document document = pickle::parse(bytes, kName);
  const pickle::CsrMatrix matrix = pickle::as_csr_matrix(document.root(), kName, "m");
  std::vector<float> out(static_cast<std::size_t>(matrix.rows * matrix.cols), 0.0f);
  pickle::densify_rows(matrix, row_of, out.data(), kName, "m");
  return out;
}

}  // namespace

TEST_CASE("pickle parses the protocol-2 subset into a value tree, memo entries shared") {
  PickleBytes p;
  p.op('}').op('q').little(1, 1).op('(').string("items").op(']').op('r').little(7, 4).op('(');
  p.integer(5).integer(300).integer(70000).integer(-2).integer(int64_t{1} << 40);
  p.op('\x8a').little(2, 1).little(0xff7f, 2);                                          // LONG1 of 2 bytes: -129
  p.op('\x88').op('\x89').op('N').op('G').raw(std::string("\x3f\xf8\0\0\0\0\0\0", 8));  // 1.5
  p.integer(1).integer(2).integer(3).op('\x87').op('X').little(4, 4).raw("t\xc3\xa9x");
  p.op('e').string("again").op('j').little(7, 4).string("items").op(')').op('u');
  const pickle::Document document = pickle::parse(p.stop(), kName);
  const pickle::Value& root = document.root();
  REQUIRE(root.kind == Kind::Dict);
  REQUIRE(root.items.size() == 6);
  CHECK(root.find("again") == root.items[1]);      // BINGET of the memoised list: the same value
  CHECK(root.find("items")->kind == Kind::Tuple);  // the later "items" key wins, as in a Python dict
  const pickle::Value& list = *root.items[1];
  REQUIRE(list.kind == Kind::List);
  REQUIRE(list.items.size() == 12);
  const std::vector<int64_t> integers{5, 300, 70000, -2, int64_t{1} << 40, -129};
  for (std::size_t i = 0; i < integers.size(); ++i) {
    CHECK(list.items[i]->kind == Kind::Int);
    CHECK(list.items[i]->integer == integers[i]);
  }
  CHECK((list.items[6]->kind == Kind::Bool && list.items[6]->boolean));
  CHECK((list.items[7]->kind == Kind::Bool && !list.items[7]->boolean));
  CHECK(list.items[8]->kind == Kind::None);
  CHECK((list.items[9]->kind == Kind::Float && list.items[9]->number == 1.5));
  CHECK(pickle::describe(*list.items[10]) == "a tuple of 3");
  CHECK(list.items[10]->items[2]->integer == 3);
  CHECK((list.items[11]->kind == Kind::Text && list.items[11]->text == "t\xc3\xa9x"));
  // BINUNICODE keeps its UTF-8 bytes
  const pickle::Document text = pickle::parse(PickleBytes().op('X').little(3, 4).raw("a\xc3\xa9").stop(), kName);
  CHECK((text.root().kind == Kind::Text && text.root().text == "a\xc3\xa9"));
}

TEST_CASE("pickle keeps a dict subclass built by REDUCE, its SETITEMS and BUILD state") {
  PickleBytes p;
  p.global("collections", "defaultdict").global("__builtin__", "list").op('\x85').op('R');
  p.op('(').integer(0).op(']').integer(1).op('a').integer(1).op(']').op('u');
  p.integer(0).op(')').op('s');  // a second key 0: overwrites
  const pickle::Document document = pickle::parse(p.stop(), kName);
  const pickle::Value& root = document.root();
  CHECK(root.built_by("collections", "defaultdict"));
  CHECK(root.arguments->items[0]->is_global("__builtin__", "list"));
  CHECK(pickle::describe(root) == "an object built by collections.defaultdict");
  REQUIRE(root.items.size() == 6);
  CHECK(root.items[1]->items[0]->integer == 1);
  CHECK(root.items[5]->kind == Kind::Tuple);
}

TEST_CASE("pickle refuses truncated, malformed and unsupported input with the byte offset") {
  check_error(parse_error(b("")), "ends without a STOP");
  check_error(parse_error(b("\x80\x02K")), "truncated: BININT1 needs 1 bytes, 0 left");
  check_error(parse_error(b("\x80\x02J\x01\x02")), "truncated: BININT needs 4 bytes, 2 left");
  check_error(parse_error(b("\x80\x02T\x10\x00\x00\x00"
                            "ab")),
              "byte 2: truncated: BINSTRING needs 16 bytes, 2 left");
  check_error(parse_error(b("\x80\x02X\x05\x00\x00\x00"
                            "ab")),
              "truncated: BINUNICODE needs 5 bytes, 2 left");
  check_error(parse_error(b("\x80\x02U\x05"
                            "ab")),
              "truncated: SHORT_BINSTRING needs 5 bytes");
  check_error(parse_error(b("\x80\x02\x8a\x02\x01")), "truncated: LONG1 needs 2 bytes, 1 left");
  check_error(parse_error(b("\x80\x02G\x01")), "truncated: BINFLOAT needs 8 bytes");
  check_error(parse_error(b("\x80\x02r\x01")), "truncated: LONG_BINPUT");
  check_error(parse_error(b("\x80\x02"
                            "cnumpy\nndarr")),
              "GLOBAL name has no end of line");
  check_error(parse_error(b("\x80\x02T\xff\xff\xff\x7f")),
              "BINSTRING of 2147483647 bytes is over the limit of 1073741824");
  check_error(parse_error(b("\x80\x02T\xfe\xff\xff\xff")), "BINSTRING with a negative length -2");
  check_error(parse_error(b("\x80\x02N\xff.")), "byte 3: unsupported pickle opcode 0xff");
  check_error(parse_error(b("\x80\x02NB.")), "unsupported pickle opcode 0x42 ('B')");
  check_error(parse_error(b("\x80\x03N.")), "pickle protocol 3");
  check_error(parse_error(b("\x80\x02NN.")), "STOP with 2 values on the stack");
  check_error(parse_error(b("\x80\x02.")), "STOP with 0 values on the stack");
  check_error(parse_error(b("\x80\x02N.N")), "1 bytes after STOP");
  check_error(parse_error(b("\x80\x02(N.")), "STOP with a MARK still open");
  check_error(parse_error(b("\x80\x02h\x05.")), "GET of memo index 5, which was never PUT");
  check_error(parse_error(b("\x80\x02q\x01")), "PUT on an empty stack");
  check_error(parse_error(b("\x80\x02N(a")), "APPEND on an empty stack");  // a MARK is not a value
  check_error(parse_error(b("\x80\x02}K\x01"
                            "a.")),
              "APPEND to a dict, expected a list");
  check_error(parse_error(b("\x80\x02}(K\x01u.")), "SETITEMS with an odd number (1)");
  check_error(parse_error(b("\x80\x02]K\x01K\x02s.")), "SETITEM on a list of 0, expected a dict");
  check_error(parse_error(b("\x80\x02]e.")), "APPENDS without a MARK");
  check_error(parse_error(b("\x80\x02N)R.")), "REDUCE calls None, expected a global");
  check_error(parse_error(b("\x80\x02"
                            "cm\nf\nNR.")),
              "REDUCE arguments are None, expected a tuple");
  check_error(parse_error(b("\x80\x02K\x01Nb.")), "BUILD on an int, expected an object");
  check_error(parse_error(b("\x80\x02"
                            "cm\nf\n)RNbNb.")),
              "BUILD on an object that already has a state");
  check_error(parse_error(b("\x80\x02\x8a\x09")), "LONG1 integer of 9 bytes does not fit in 64 bits");
}

TEST_CASE("pickle enforces every limit before taking the memory") {
  pickle::Limits limits;
  limits.max_depth = 3;
  check_error(parse_error(b("\x80\x02(((("), limits), "more than 3 nested MARKs");
  limits = {};
  limits.max_values = 3;
  check_error(parse_error(b("\x80\x02]NNN"), limits), "more than 3 values");
  limits = {};
  limits.max_stack = 2;
  check_error(parse_error(b("\x80\x02NNN"), limits), "stack deeper than 2 values");
  limits = {};
  limits.max_memo = 1;
  check_error(parse_error(b("\x80\x02Nq\x01q\x01q\x02"), limits), "more than 1 memo entries");
  limits = {};
  limits.max_items = 2;
  check_error(parse_error(b("\x80\x02](NNNe"), limits), "more than 2 container elements");
  limits = {};
  limits.max_string_bytes = 3;
  check_error(parse_error(b("\x80\x02U\x04"
                            "abcd."),
                          limits),
              "SHORT_BINSTRING of 4 bytes is over the limit of 3");
  check_error(parse_error(b("\x80\x02"
                            "cnumpy\nx\n."),
                          limits),
              "GLOBAL module of 6 bytes is over the limit of 3");
  limits = {};
  limits.max_input_bytes = 4;
  const IoError error = parse_error(b("\x80\x02NN0."), limits);
  CHECK(error.reason() == "pickle of 6 bytes is over the limit of 4");
}

TEST_CASE("numpy arrays from pickles: dtypes, byte orders and Fortran order read as numpy stores them") {
  {  // <i4, C order
    const std::vector<int32_t> values{1, -2, 3, 4, 5, -6};
    const auto bytes = sgnn::testing::ndarray_pickle("i4", '<', {2, 3}, false, sgnn::testing::bytes_of(values));
    const pickle::Document document = pickle::parse(bytes, kName);
    const pickle::NdArray a = pickle::as_ndarray(document.root(), kName, "a");
    CHECK(a.shape == std::vector<int64_t>{2, 3});
    CHECK(a.dtype_name() == "<i4");
    CHECK(a.integer_at(a.offset_of(1, 2), kName, "a") == -6);
    CHECK(a.float_at(a.offset_of(0, 1)) == -2.0f);
  }
  {  // >f8, Fortran order: storage is column by column, big-endian
    std::string data;
    for (const double v : {1.0, 4.0, 2.0, 5.0, 3.0, 0.1}) {
      uint64_t bits = 0;
      std::memcpy(&bits, &v, 8);
      for (int i = 7; i >= 0; --i) data += static_cast<char>((bits >> (8 * i)) & 0xff);
    }
    const auto bytes = sgnn::testing::ndarray_pickle("f8", '>', {2, 3}, true, data);
    const pickle::Document document = pickle::parse(bytes, kName);
    const pickle::NdArray a = pickle::as_ndarray(document.root(), kName, "a");
    CHECK(a.dtype_name() == ">f8");
    CHECK(a.float_at(a.offset_of(0, 1)) == 2.0f);
    CHECK(a.float_at(a.offset_of(1, 0)) == 4.0f);
    CHECK(a.float_at(a.offset_of(1, 2)) == static_cast<float>(0.1));
  }
  {  // |b1, |u1, <i8, <u8
    const pickle::Document b =
        pickle::parse(sgnn::testing::ndarray_pickle("b1", '|', {3}, false, std::string("\0\1\2", 3)), kName);
    const pickle::NdArray bools = pickle::as_ndarray(b.root(), kName, "a");
    CHECK(bools.integer_at(2, kName, "a") == 1);
    CHECK(bools.float_at(0) == 0.0f);
    const pickle::Document u = pickle::parse(sgnn::testing::ndarray_pickle("u1", '|', {1}, false, "\xff"), kName);
    CHECK(pickle::as_ndarray(u.root(), kName, "a").integer_at(0, kName, "a") == 255);
    const std::vector<int64_t> big{-(int64_t{1} << 40)};
    const pickle::Document i =
        pickle::parse(sgnn::testing::ndarray_pickle("i8", '<', {1}, false, sgnn::testing::bytes_of(big)), kName);
    CHECK(pickle::as_ndarray(i.root(), kName, "a").integer_at(0, kName, "a") == -(int64_t{1} << 40));
    const std::vector<uint64_t> huge{~uint64_t{0}};
    const pickle::Document h =
        pickle::parse(sgnn::testing::ndarray_pickle("u8", '<', {1}, false, sgnn::testing::bytes_of(huge)), kName);
    const pickle::NdArray unsigned_array = pickle::as_ndarray(h.root(), kName, "a");
    CHECK_THROWS_WITH_AS(unsigned_array.integer_at(0, kName, "a"), doctest::Contains("does not fit in int64"), IoError);
  }
}

TEST_CASE("numpy arrays from pickles: wrong classes, dtypes and lengths are refused") {
  check_error(ndarray_error(PickleBytes().op(']').stop()), "a is a list of 0, expected a numpy.ndarray");
  check_error(ndarray_error(sgnn::testing::csr_pickle(1, 1, {0, 0}, {}, "f4", "")),
              "a is an object built by scipy.sparse.csr.csr_matrix, expected a numpy.ndarray");
  check_error(ndarray_error(sgnn::testing::ndarray_pickle("c8", '<', {1}, false, "12345678")), "has dtype 'c8'");
  check_error(ndarray_error(sgnn::testing::ndarray_pickle("f2", '<', {1}, false, "12")), "has dtype 'f2'");
  check_error(ndarray_error(sgnn::testing::ndarray_pickle("i4", 'x', {1}, false, "1234")), "without a byte order");
  check_error(ndarray_error(sgnn::testing::ndarray_pickle("i4", '<', {2, 3}, false, "1234")),
              "has 4 data bytes but its shape and dtype <i4 need 24");
  check_error(ndarray_error(sgnn::testing::ndarray_pickle("i4", '<', {-1}, false, "")), "shape entry that is an int");
  check_error(ndarray_error(sgnn::testing::ndarray_pickle("i4", '<', {int64_t{1} << 40, int64_t{1} << 40}, false, "")),
              "element count overflows int64");
  PickleBytes text_data;  // data given as unicode text (not numpy's byte string)
  sgnn::testing::ndarray(text_data, "u1", '|', {1}, false, "x");
  std::string bytes = text_data.stop();
  bytes[bytes.rfind("U\x01x")] = 'X';
  bytes.replace(bytes.rfind("X\x01x") + 1, 1, std::string("\x01\0\0\0", 4));
  check_error(ndarray_error(bytes), "has data that is a unicode string, expected a byte string");
  PickleBytes no_state;
  no_state.global("numpy.core.multiarray", "_reconstruct").global("numpy", "ndarray").integer(0).op('\x85').string("b");
  no_state.op('\x87').op('R');
  check_error(ndarray_error(no_state.stop()), "state is missing");
}

TEST_CASE("csr_matrix from a pickle densifies as numpy's todense: duplicates summed in the data's type, rows placed") {
  // 2 x 3, row 0: (0: 1.5, 2: 0.25, 0: 2.25); row 1: (1: -1); placed in reverse order
  const std::vector<float> f4{1.5f, 0.25f, 2.25f, -1.0f};
  const auto matrix = sgnn::testing::csr_pickle(2, 3, {0, 3, 4}, {0, 2, 0, 1}, "f4", sgnn::testing::bytes_of(f4));
  CHECK(densified(matrix, {1, 0}) == std::vector<float>{0, -1, 0, 3.75f, 0, 0.25f});
  const std::vector<double> f8{0.1, 0.2, -0.0};
  const auto wide = sgnn::testing::csr_pickle(1, 2, {0, 3}, {0, 0, 1}, "f8", sgnn::testing::bytes_of(f8));
  const std::vector<float> sums = densified(wide, {0});
  CHECK(sums[0] == static_cast<float>(0.1 + 0.2));  // summed in float64, then rounded once
  CHECK(std::signbit(sums[1]) == false);            // 0.0 + -0.0, as numpy adds into a zeroed row
  const std::vector<uint8_t> bools{1, 1, 0};
  CHECK(densified(sgnn::testing::csr_pickle(1, 2, {0, 3}, {1, 1, 0}, "b1", sgnn::testing::bytes_of(bools)), {0}) ==
        std::vector<float>{0, 1});
  const std::vector<int8_t> small{100, 27};
  CHECK(densified(sgnn::testing::csr_pickle(1, 1, {0, 2}, {0, 0}, "i1", sgnn::testing::bytes_of(small)), {0}) ==
        std::vector<float>{127});
  const std::vector<int8_t> overflow{100, 28};
  const auto overflowing = sgnn::testing::csr_pickle(1, 1, {0, 2}, {0, 0}, "i1", sgnn::testing::bytes_of(overflow));
  CHECK_THROWS_WITH_AS(densified(overflowing, {0}), doctest::Contains("m has entries whose sum overflows |i1"),
                       IoError);
  const std::vector<double> huge{1e300};
  const auto infinite = sgnn::testing::csr_pickle(1, 1, {0, 1}, {0}, "f8", sgnn::testing::bytes_of(huge));
  CHECK_THROWS_WITH_AS(densified(infinite, {0}), doctest::Contains("m row 0 column 0 is not finite in float32"),
                       IoError);
}

TEST_CASE("csr_matrix from a pickle refuses a broken structure") {
  const std::string one(4, '\0');
  const std::string two(8, '\0');
  check_error(csr_error(sgnn::testing::csr_pickle(1, 2, {1, 1}, {0}, "f4", one)), "indptr entry 0 is 1");
  check_error(csr_error(sgnn::testing::csr_pickle(2, 2, {0, 2, 1}, {0, 1}, "f4", two)), "indptr entry 2 is 1");
  check_error(csr_error(sgnn::testing::csr_pickle(1, 2, {0, 1}, {0, 1}, "f4", two)),
              "indptr ends at 1 but there are 2");
  check_error(csr_error(sgnn::testing::csr_pickle(2, 2, {0, 1}, {0}, "f4", one)), "indptr has 2 entries for 2 rows");
  check_error(csr_error(sgnn::testing::csr_pickle(1, 2, {0, 1}, {2}, "f4", one)),
              "indices entry 0 is 2, outside [0, 2)");
  check_error(csr_error(sgnn::testing::csr_pickle(1, 2, {0, 1}, {0}, "f4", two.substr(0, 0))),
              "has 0 data bytes but its shape and dtype <f4 need 4");
  check_error(csr_error(sgnn::testing::csr_pickle(-1, 2, {0}, {}, "f4", "")), "without a _shape");
  std::string csc = sgnn::testing::csr_pickle(1, 1, {0, 0}, {}, "f4", "");
  csc.replace(csc.find("csr_matrix"), 10, "csc_matrix");
  check_error(csr_error(csc),
              "m is an object built by scipy.sparse.csr.csc_matrix, expected a scipy.sparse.csr_matrix");
  std::string format = sgnn::testing::csr_pickle(1, 1, {0, 0}, {}, "f4", "");
  format.replace(format.find("U\x03"
                             "csr"),
                 5,
                 "U\x03"
                 "csc");
  check_error(csr_error(format), "format is not 'csr'");
  std::string missing = sgnn::testing::csr_pickle(1, 1, {0, 0}, {}, "f4", "");
  missing.replace(missing.find("indices"), 7, "indexes");
  check_error(csr_error(missing), "m (csr_matrix) indices is missing");
  std::string float_indptr = sgnn::testing::csr_pickle(1, 1, {0, 0}, {}, "f4", "");
  float_indptr.replace(float_indptr.find("U\x02i4"), 4,
                       "U\x02"
                       "f4");
  check_error(csr_error(float_indptr), "m (csr_matrix) indptr has dtype <f4, expected integers");
}
