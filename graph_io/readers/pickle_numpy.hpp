// numpy arrays and scipy.sparse CSR matrices out of a parsed pickle
// (graph_io/readers/pickle.hpp), without Python: what numpy.core.multiarray.
// _reconstruct + ndarray.__setstate__ and csr_matrix.__dict__ hold.
//
//   as_ndarray(value)     a numpy.ndarray of a plain numeric dtype (bool, int8-64,
//                         uint8-64, float32/64; either byte order; C or Fortran
//                         order) whose data is a byte string of exactly
//                         numel * item size bytes
//   as_csr_matrix(value)  a scipy.sparse csr_matrix whose _shape, indptr (rows + 1
//                         entries from 0, non-decreasing, ending at nnz), indices
//                         (nnz, each in [0, cols)) and data (nnz, numeric) agree
//   densify_rows(matrix)  rows as numpy's todense() then torch's .to(float32)
//                         give them: duplicate entries summed in the data's own
//                         type, then converted to float32
//   copy_rows(array)      rows of a rank-2 array converted to float32
//
// The views point into the Document, which must outlive them. Anything else
// (another class, an object array, a mismatched length) throws
// IoError(file, 0, "<what> ...").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graph_io/readers/pickle.hpp"

namespace sgnn::graph_io::pickle {

struct NdArray {
  char kind = 'f';          // 'b' bool, 'i' signed integer, 'u' unsigned integer, 'f' floating point
  int item_size = 0;        // bytes per element: 1, 2, 4 or 8 (floating point: 4 or 8)
  bool big_endian = false;  // byte order of `data`
  bool fortran_order = false;
  std::vector<int64_t> shape;
  std::string_view data;  // numel * item_size bytes, in the Document

  int64_t numel() const;
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  bool is_integer() const { return kind == 'b' || kind == 'i' || kind == 'u'; }
  std::string dtype_name() const;  // "<i4", ">f8", "|b1"
  // Element `flat` in storage order; the array must be an integer (or bool) one.
  // IoError (naming `file` and `what`) for a uint64 above INT64_MAX.
  int64_t integer_at(int64_t flat, const std::string& file, std::string_view what) const;
  // Element `flat` in storage order as torch's .to(torch.float) converts it.
  float float_at(int64_t flat) const;
  // Storage offset (in elements) of [row, column] of a rank-2 array.
  int64_t offset_of(int64_t row, int64_t column) const {
    return fortran_order ? column * shape[0] + row : row * shape[1] + column;
  }
};

struct CsrMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  NdArray indptr;   // rows + 1 integers
  NdArray indices;  // nnz integers in [0, cols)
  NdArray data;     // nnz numbers
};

NdArray as_ndarray(const Value& value, const std::string& file, std::string_view what);
CsrMatrix as_csr_matrix(const Value& value, const std::string& file, std::string_view what);

// Writes row r of `matrix`, densified, into destination + row_of[r] * matrix.cols
// for every row r (row_of has matrix.rows entries); other columns are left as
// they are, so `destination` starts zeroed. IoError when an integer sum
// overflows the data's type (numpy would wrap) or a value is not finite in float32.
void densify_rows(const CsrMatrix& matrix, std::span<const int64_t> row_of, float* destination, const std::string& file,
                  std::string_view what);

// The same for a rank-2 array: row r converted to float32 goes to
// destination + row_of[r] * shape[1]. IoError for a value not finite in float32.
void copy_rows(const NdArray& array, std::span<const int64_t> row_of, float* destination, const std::string& file,
               std::string_view what);

}  // namespace sgnn::graph_io::pickle
