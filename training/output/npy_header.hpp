// The header of a NumPy .npy file, format version 1.0 (numpy.lib.format):
// the magic "\x93NUMPY", version bytes 1 0, a little-endian uint16 header
// length, then a Python dict literal {'descr': ..., 'fortran_order': False,
// 'shape': (rows,), } padded with spaces and ended by '\n' so that the data
// starts at a multiple of 64 bytes. The data that follows is `rows` records
// of `descr`, C order, no padding between records. np.load reads such a file
// without pickle (allow_pickle=False) as long as descr has no object fields.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sgnn::training {

// `descr`: a NumPy dtype description as Python text, e.g. "'<f4'" or
// "[('node', '<i8'), ('values', '<f4', (7,))]". InvalidArgument when rows < 0
// or the header would not fit version 1.0 (65535 bytes).
std::string npy_header(std::string_view descr, int64_t rows);

}  // namespace sgnn::training
