#include "graph_io/readers/pickle_numpy.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace sgnn::graph_io::pickle {

namespace {

[[noreturn]] void fail(const std::string& file, std::string_view what, const std::string& reason) {
  throw IoError(file, 0, detail::concat(what, " ", reason));
}

// The bits of element `flat`, in host order, zero-extended.
uint64_t bits_at(const NdArray& array, int64_t flat) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(array.data.data()) + flat * array.item_size;
  uint64_t bits = 0;
  if (array.big_endian) {
    for (int i = 0; i < array.item_size; ++i) bits = (bits << 8) | bytes[i];
  } else {
    for (int i = array.item_size; i-- > 0;) bits = (bits << 8) | bytes[i];
  }
  return bits;
}

int64_t sign_extended(uint64_t bits, int item_size) {
  if (item_size < 8 && (bits >> (8 * item_size - 1)) != 0) bits |= ~uint64_t{0} << (8 * item_size);
  return static_cast<int64_t>(bits);
}

// A dtype descriptor as numpy pickles it: dtype('i4', 0, 1) with BUILD state
// (version, byte order, ...).
void read_dtype(const Value& dtype, NdArray& array, const std::string& file, std::string_view what) {
  if (!dtype.built_by("numpy", "dtype") || dtype.arguments->items.empty() || !dtype.arguments->items[0]->is_string()) {
    fail(file, what, detail::concat("has a dtype that is ", describe(dtype), ", expected numpy.dtype('<kind><size>')"));
  }
  const std::string_view descriptor = dtype.arguments->items[0]->text;
  const bool known_kind =
      descriptor.size() == 2 && std::string_view("biuf").find(descriptor[0]) != std::string_view::npos;
  const int size = known_kind ? descriptor[1] - '0' : 0;
  const bool supported = known_kind && (descriptor[0] == 'b'   ? size == 1
                                        : descriptor[0] == 'f' ? size == 4 || size == 8
                                                               : size == 1 || size == 2 || size == 4 || size == 8);
  if (!supported) {
    fail(file, what,
         detail::concat("has dtype '", descriptor.substr(0, 16),
                        "', expected a bool, integer or float32/float64 dtype"));
  }
  array.kind = descriptor[0];
  array.item_size = size;
  const Value* state = dtype.state;
  if (state == nullptr || state->kind != Kind::Tuple || state->items.size() < 2 || !state->items[1]->is_string() ||
      state->items[1]->text.size() != 1 ||
      std::string_view("<>|=").find(state->items[1]->text[0]) == std::string_view::npos) {
    fail(file, what, "has a dtype without a byte order ('<', '>', '|' or '=') in its state");
  }
  const char order = state->items[1]->text[0];
  array.big_endian = order == '>' || (order == '=' && std::endian::native == std::endian::big);
}

// An integer array's element, checked to lie in [0, limit).
int64_t index_at(const NdArray& array, int64_t flat, int64_t limit, const std::string& file, std::string_view what) {
  const int64_t value = array.integer_at(flat, file, what);
  if (value < 0 || value >= limit) {
    fail(file, what, detail::concat("entry ", flat, " is ", value, ", outside [0, ", limit, ")"));
  }
  return value;
}

// Row by row: the entries of a row summed per column in `Sum` (numpy's
// todense adds them into a zeroed row in the data's own type), then converted.
template <typename Sum, typename Add, typename Finish>
void densify_with(const CsrMatrix& matrix, std::span<const int64_t> row_of, float* destination, const Add& add,
                  const Finish& finish, const std::string& file, std::string_view what) {
  const auto columns = static_cast<std::size_t>(matrix.cols);
  std::vector<Sum> sums(columns);
  std::vector<int64_t> last_row(columns, -1);
  for (int64_t row = 0; row < matrix.rows; ++row) {
    const int64_t begin = matrix.indptr.integer_at(row, file, what);
    const int64_t end = matrix.indptr.integer_at(row + 1, file, what);
    for (int64_t k = begin; k < end; ++k) {
      const auto column = static_cast<std::size_t>(matrix.indices.integer_at(k, file, what));
      if (last_row[column] != row) {
        last_row[column] = row;
        sums[column] = Sum{};
      }
      sums[column] = add(sums[column], k);
    }
    float* out = destination + row_of[static_cast<std::size_t>(row)] * matrix.cols;
    for (int64_t k = begin; k < end; ++k) {
      const auto column = static_cast<std::size_t>(matrix.indices.integer_at(k, file, what));
      const float value = finish(sums[column]);
      if (!std::isfinite(value)) {
        fail(file, what, detail::concat("row ", row, " column ", column, " is not finite in float32"));
      }
      out[column] = value;
    }
  }
}

}  // namespace

int64_t NdArray::numel() const {
  int64_t count = 1;
  for (const int64_t extent : shape) count *= extent;
  return count;
}

std::string NdArray::dtype_name() const {
  return detail::concat(item_size == 1 ? '|' : big_endian ? '>' : '<', kind, item_size);
}

int64_t NdArray::integer_at(int64_t flat, const std::string& file, std::string_view what) const {
  const uint64_t bits = bits_at(*this, flat);
  if (kind == 'i') return sign_extended(bits, item_size);
  if (kind == 'u' && bits > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    fail(file, what, detail::concat("entry ", flat, " (", bits, ") does not fit in int64"));
  }
  return kind == 'b' ? int64_t{bits != 0} : static_cast<int64_t>(bits);
}

float NdArray::float_at(int64_t flat) const {
  const uint64_t bits = bits_at(*this, flat);
  switch (kind) {
    case 'b': return bits != 0 ? 1.0f : 0.0f;
    case 'i': return static_cast<float>(sign_extended(bits, item_size));
    case 'u': return static_cast<float>(bits);
    default:
      return item_size == 4 ? std::bit_cast<float>(static_cast<uint32_t>(bits))
                            : static_cast<float>(std::bit_cast<double>(bits));
  }
}

NdArray as_ndarray(const Value& value, const std::string& file, std::string_view what) {
  const bool reconstructed = value.built_by("numpy.core.multiarray", "_reconstruct") ||
                             value.built_by("numpy._core.multiarray", "_reconstruct");
  if (!reconstructed || value.arguments->items.empty() || !value.arguments->items[0]->is_global("numpy", "ndarray")) {
    fail(file, what, detail::concat("is ", describe(value), ", expected a numpy.ndarray"));
  }
  // ndarray.__setstate__((version,) shape, dtype, is_fortran, data)
  const Value* state = value.state;
  if (state == nullptr || state->kind != Kind::Tuple || (state->items.size() != 4 && state->items.size() != 5)) {
    fail(file, what,
         detail::concat("is a numpy.ndarray whose state is ", state ? describe(*state) : "missing",
                        ", expected a tuple of 4 or 5"));
  }
  const std::size_t first = state->items.size() - 4;
  const Value& shape = *state->items[first];
  const Value& dtype = *state->items[first + 1];
  const Value& fortran = *state->items[first + 2];
  const Value& data = *state->items[first + 3];
  NdArray array;
  constexpr std::size_t kMaxRank = 32;
  if (shape.kind != Kind::Tuple || shape.items.size() > kMaxRank) {
    fail(file, what, detail::concat("has a shape that is ", describe(shape), ", expected a tuple of at most 32 ints"));
  }
  read_dtype(dtype, array, file, what);
  int64_t numel = 1;
  for (const Value* extent : shape.items) {
    if (extent->kind != Kind::Int || extent->integer < 0) {
      fail(file, what, detail::concat("has a shape entry that is ", describe(*extent), ", expected an int >= 0"));
    }
    if (extent->integer != 0 && numel > std::numeric_limits<int64_t>::max() / array.item_size / extent->integer) {
      fail(file, what, "has a shape whose element count overflows int64");
    }
    numel *= extent->integer;
    array.shape.push_back(extent->integer);
  }
  if (fortran.kind != Kind::Bool && fortran.kind != Kind::Int) {
    fail(file, what, detail::concat("has an is_fortran flag that is ", describe(fortran), ", expected a bool"));
  }
  array.fortran_order = fortran.kind == Kind::Bool ? fortran.boolean : fortran.integer != 0;
  if (data.kind != Kind::Bytes) {
    fail(file, what,
         detail::concat("has data that is ", describe(data),
                        ", expected a byte string (object arrays are not supported)"));
  }
  const auto expected = static_cast<uint64_t>(numel) * static_cast<uint64_t>(array.item_size);
  if (data.text.size() != expected) {
    fail(file, what,
         detail::concat("has ", data.text.size(), " data bytes but its shape and dtype ", array.dtype_name(), " need ",
                        expected));
  }
  array.data = data.text;
  return array;
}

CsrMatrix as_csr_matrix(const Value& value, const std::string& file, std::string_view what) {
  const bool csr = value.built_by("scipy.sparse.csr", "csr_matrix") ||
                   value.built_by("scipy.sparse._csr", "csr_matrix") || value.built_by("scipy.sparse", "csr_matrix");
  if (!csr) fail(file, what, detail::concat("is ", describe(value), ", expected a scipy.sparse.csr_matrix"));
  const Value* state = value.state;
  if (state == nullptr || state->kind != Kind::Dict) fail(file, what, "is a csr_matrix without its __dict__ state");
  if (const Value* format = state->find("format");
      format != nullptr && (!format->is_string() || format->text != "csr")) {
    fail(file, what, "is a csr_matrix whose format is not 'csr'");
  }
  const Value* shape = state->find("_shape");
  if (shape == nullptr) shape = state->find("shape");
  if (shape == nullptr || shape->kind != Kind::Tuple || shape->items.size() != 2 ||
      shape->items[0]->kind != Kind::Int || shape->items[1]->kind != Kind::Int || shape->items[0]->integer < 0 ||
      shape->items[1]->integer < 0 || shape->items[0]->integer > std::numeric_limits<int32_t>::max() ||
      shape->items[1]->integer > std::numeric_limits<int32_t>::max()) {
    fail(file, what, "is a csr_matrix without a _shape of two ints in [0, 2^31)");
  }
  CsrMatrix matrix;
  matrix.rows = shape->items[0]->integer;
  matrix.cols = shape->items[1]->integer;
  const auto member = [&](const char* key, bool integer) {
    const Value* found = state->find(key);
    const std::string name = detail::concat(what, " (csr_matrix) ", key);
    if (found == nullptr) fail(file, name, "is missing");
    NdArray array = as_ndarray(*found, file, name);
    if (array.rank() != 1) fail(file, name, detail::concat("has rank ", array.rank(), ", expected 1"));
    if (integer && !array.is_integer()) {
      fail(file, name, detail::concat("has dtype ", array.dtype_name(), ", expected integers"));
    }
    return array;
  };
  matrix.indptr = member("indptr", true);
  matrix.indices = member("indices", true);
  matrix.data = member("data", false);
  const std::string indptr_name = detail::concat(what, " (csr_matrix) indptr");
  if (matrix.indptr.numel() != matrix.rows + 1) {
    fail(file, indptr_name, detail::concat("has ", matrix.indptr.numel(), " entries for ", matrix.rows, " rows"));
  }
  const int64_t nnz = matrix.indices.numel();
  if (matrix.data.numel() != nnz) {
    fail(file, what, detail::concat("(csr_matrix) has ", nnz, " indices but ", matrix.data.numel(), " data values"));
  }
  int64_t previous = 0;
  for (int64_t row = 0; row <= matrix.rows; ++row) {
    const int64_t offset = matrix.indptr.integer_at(row, file, indptr_name);
    if (row == 0 ? offset != 0 : offset < previous || offset > nnz) {
      fail(file, indptr_name,
           detail::concat("entry ", row, " is ", offset, ": expected 0 first, then non-decreasing up to nnz ", nnz));
    }
    previous = offset;
  }
  if (previous != nnz) {
    fail(file, indptr_name, detail::concat("ends at ", previous, " but there are ", nnz, " indices"));
  }
  const std::string indices_name = detail::concat(what, " (csr_matrix) indices");
  for (int64_t k = 0; k < nnz; ++k) index_at(matrix.indices, k, matrix.cols, file, indices_name);
  return matrix;
}

void densify_rows(const CsrMatrix& matrix, std::span<const int64_t> row_of, float* destination, const std::string& file,
                  std::string_view what) {
  const NdArray& data = matrix.data;
  if (data.kind == 'f' && data.item_size == 4) {
    densify_with<float>(
        matrix, row_of, destination, [&](float sum, int64_t k) { return sum + data.float_at(k); },
        [](float sum) { return sum; }, file, what);
  } else if (data.kind == 'f') {
    densify_with<double>(
        matrix, row_of, destination,
        [&](double sum, int64_t k) { return sum + std::bit_cast<double>(bits_at(data, k)); },
        [](double sum) { return static_cast<float>(sum); }, file, what);
  } else if (data.kind == 'b') {
    // numpy adds bools as a logical or
    densify_with<int64_t>(
        matrix, row_of, destination,
        [&](int64_t sum, int64_t k) { return int64_t{sum != 0 || data.integer_at(k, file, what) != 0}; },
        [](int64_t sum) { return static_cast<float>(sum); }, file, what);
  } else {
    // Integers: numpy wraps around on overflow; refuse instead.
    const int bits = 8 * data.item_size;
    int64_t lowest = 0;
    int64_t highest = std::numeric_limits<int64_t>::max();
    if (data.kind == 'i') {
      lowest = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
      if (bits < 64) highest = (int64_t{1} << (bits - 1)) - 1;
    } else if (bits < 64) {
      highest = (int64_t{1} << bits) - 1;
    }
    densify_with<int64_t>(
        matrix, row_of, destination,
        [&](int64_t sum, int64_t k) {
          int64_t total = 0;
          if (__builtin_add_overflow(sum, data.integer_at(k, file, what), &total) || total < lowest ||
              total > highest) {
            fail(file, what, detail::concat("has entries whose sum overflows ", data.dtype_name()));
          }
          return total;
        },
        [](int64_t sum) { return static_cast<float>(sum); }, file, what);
  }
}

void copy_rows(const NdArray& array, std::span<const int64_t> row_of, float* destination, const std::string& file,
               std::string_view what) {
  const int64_t columns = array.shape[1];
  for (int64_t row = 0; row < array.shape[0]; ++row) {
    float* out = destination + row_of[static_cast<std::size_t>(row)] * columns;
    for (int64_t column = 0; column < columns; ++column) {
      const float value = array.float_at(array.offset_of(row, column));
      if (!std::isfinite(value)) {
        fail(file, what, detail::concat("row ", row, " column ", column, " is not finite in float32"));
      }
      out[column] = value;
    }
  }
}

}  // namespace sgnn::graph_io::pickle
