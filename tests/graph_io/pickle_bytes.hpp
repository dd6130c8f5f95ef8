// Protocol-2 pickle bytes written the way Python 2's cPickle wrote numpy
// arrays and scipy CSR matrices, for tests of graph_io/readers/pickle*.hpp: small
// hand-made inputs whose every byte the test controls.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sgnn::testing {

class PickleBytes {
 public:
  PickleBytes() : bytes_("\x80\x02", 2) {}
  PickleBytes& op(char opcode) {
    bytes_ += opcode;
    return *this;
  }
  PickleBytes& raw(std::string_view bytes) {
    bytes_ += bytes;
    return *this;
  }
  PickleBytes& integer(int64_t value) {
    if (value >= 0 && value < 256) return op('K').little(value, 1);
    if (value >= 0 && value < 65536) return op('M').little(value, 2);
    if (value >= INT32_MIN && value <= INT32_MAX) return op('J').little(value, 4);
    return op('\x8a').little(8, 1).little(value, 8);
  }
  PickleBytes& string(std::string_view text) {
    if (text.size() < 256) {
      op('U').little(static_cast<int64_t>(text.size()), 1);
    } else {
      op('T').little(static_cast<int64_t>(text.size()), 4);
    }
    return raw(text);
  }
  PickleBytes& global(std::string_view module, std::string_view name) {
    return op('c').raw(module).raw("\n").raw(name).raw("\n");
  }
  PickleBytes& little(int64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) bytes_ += static_cast<char>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff);
    return *this;
  }
  std::string stop() const { return bytes_ + "."; }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// Appends numpy.core.multiarray._reconstruct(ndarray, (0,), 'b') with its
// state (1, shape, dtype(descriptor) with byte `order`, fortran, data).
inline PickleBytes& ndarray(PickleBytes& out, std::string_view descriptor, char order,
                            const std::vector<int64_t>& shape, bool fortran, std::string_view data) {
  out.global("numpy.core.multiarray", "_reconstruct").global("numpy", "ndarray").integer(0).op('\x85').string("b");
  out.op('\x87').op('R').op('(').integer(1).op('(');
  for (const int64_t extent : shape) out.integer(extent);
  out.op('t').global("numpy", "dtype").string(descriptor).integer(0).integer(1).op('\x87').op('R');
  out.op('(').integer(3).string(std::string(1, order)).op('N').op('N').op('N').integer(-1).integer(-1).integer(0);
  out.op('t').op('b').op(fortran ? '\x88' : '\x89').string(data).op('t').op('b');
  return out;
}

template <typename T>
std::string bytes_of(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// A scipy.sparse.csr.csr_matrix as cPickle wrote it (little-endian arrays).
inline std::string csr_pickle(int64_t rows, int64_t cols, const std::vector<int32_t>& indptr,
                              const std::vector<int32_t>& indices, std::string_view data_descriptor,
                              std::string_view data) {
  PickleBytes out;
  out.global("scipy.sparse.csr", "csr_matrix").op(')').op('\x81').op('}').op('(');
  out.string("format").string("csr").string("_shape").integer(rows).integer(cols).op('\x86');
  out.string("indptr");
  ndarray(out, "i4", '<', {static_cast<int64_t>(indptr.size())}, false, bytes_of(indptr));
  out.string("indices");
  ndarray(out, "i4", '<', {static_cast<int64_t>(indices.size())}, false, bytes_of(indices));
  out.string("data");
  ndarray(out, data_descriptor, data_descriptor == "b1" || data_descriptor == "i1" ? '|' : '<',
          {static_cast<int64_t>(indices.size())}, false, data);
  return out.op('u').op('b').stop();
}

inline std::string ndarray_pickle(std::string_view descriptor, char order, const std::vector<int64_t>& shape,
                                  bool fortran, std::string_view data) {
  PickleBytes out;
  return ndarray(out, descriptor, order, shape, fortran, data).stop();
}

}  // namespace sgnn::testing
