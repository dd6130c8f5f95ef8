#include "training/output/npy_header.hpp"

#include "core/error.hpp"

namespace sgnn::training {

std::string npy_header(std::string_view descr, int64_t rows) {
  SGNN_CHECK(rows >= 0, "npy_header: rows must be non-negative, got ", rows);
  constexpr std::size_t kPreamble = 10;  // magic (6), version (2), header length (2)
  constexpr std::size_t kAlignment = 64;
  std::string dict = detail::concat("{'descr': ", descr, ", 'fortran_order': False, 'shape': (", rows, ",), }");
  const std::size_t unpadded = kPreamble + dict.size() + 1;  // + '\n'
  dict.append((kAlignment - unpadded % kAlignment) % kAlignment, ' ');
  dict.push_back('\n');
  SGNN_CHECK(dict.size() <= 65535, "npy_header: a header of ", dict.size(), " bytes does not fit NPY version 1.0");
  std::string header = "\x93NUMPY";
  header.push_back('\x01');
  header.push_back('\x00');
  header.push_back(static_cast<char>(dict.size() & 0xff));
  header.push_back(static_cast<char>(dict.size() >> 8));
  return header + dict;
}

}  // namespace sgnn::training
