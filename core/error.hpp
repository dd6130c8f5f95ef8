// sgnn::Error and its subclasses: every failure the library reports.
//
// Messages say what failed, where, and what to do about it. Subclasses let a
// caller react to one kind (an unreadable file, a full GPU) without parsing
// text. Nothing in the library aborts the process on bad input.
#pragma once

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace sgnn {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// A caller passed something the function cannot accept (shape, dtype, device,
// option value).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// A file could not be read or its contents are invalid. `file()` and `line()`
// locate the problem (line 0: the file as a whole), `reason()` explains it.
class IoError : public Error {
 public:
  IoError(std::string file, int64_t line, std::string reason);
  const std::string& file() const { return file_; }
  int64_t line() const { return line_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  int64_t line_;
  std::string reason_;
};

// A CUDA, cuBLAS or cuSPARSE call failed, or a kernel launch did.
class CudaError : public Error {
 public:
  using Error::Error;
};

// Memory could not be allocated; the message gives requested and free bytes.
// The process stays usable: the failed allocation left nothing behind.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

// Misuse of the autograd engine (backward twice through a freed graph, a
// non-scalar root without a gradient, ...).
class AutogradError : public Error {
 public:
  using Error::Error;
};

// NaN or Inf where a finite value is required.
class NumericalError : public Error {
 public:
  using Error::Error;
};

namespace detail {
template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}
// Throws InvalidArgument(message + " [check '<condition>' in <function>]"):
// the function's qualified name (of `signature`, the compiler's
// __PRETTY_FUNCTION__), not a source file, which an install does not ship.
[[noreturn]] void throw_check_failure(const char* condition, const char* signature, const std::string& message);
// "sgnn::training::SGConv::forward" of "sgnn::Tensor
// sgnn::training::SGConv::forward(const ...)": the name without the return
// type and the parameters.
std::string function_name(const char* signature);
}  // namespace detail

}  // namespace sgnn

// SGNN_CHECK(cond, parts...): throws sgnn::InvalidArgument with the
// concatenated message parts when `cond` is false.
#define SGNN_CHECK(condition, ...)                                                          \
  do {                                                                                      \
    if (!(condition)) [[unlikely]] {                                                        \
      ::sgnn::detail::throw_check_failure(#condition, __PRETTY_FUNCTION__,                  \
                                          ::sgnn::detail::concat(__VA_ARGS__));             \
    }                                                                                       \
  } while (false)
