// Stand-in for the CHECK_* macros of glog that RoDe's matrix utilities
// (utils/matrix_utils.cu) use, so that RoDe's own files compile without glog:
// a failed check prints the condition and the streamed message, then aborts,
// as glog's do. Like glog's header it brings <iostream>, which RoDe's
// CUDA_CALL macro (utils/basic_utils.h) uses without including it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

namespace rode_compat {

class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition) {
    message_ << file << ":" << line << ": check failed: " << condition << " ";
  }
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  ~CheckFailure() {
    std::fprintf(stderr, "%s\n", message_.str().c_str());
    std::abort();
  }
  std::ostream& stream() { return message_; }

 private:
  std::ostringstream message_;
};

}  // namespace rode_compat

#define RODE_COMPAT_CHECK(condition) \
  if (condition) {                   \
  } else                             \
    ::rode_compat::CheckFailure(__FILE__, __LINE__, #condition).stream()

#define CHECK(condition) RODE_COMPAT_CHECK(condition)
#define CHECK_EQ(a, b) RODE_COMPAT_CHECK((a) == (b))
#define CHECK_NE(a, b) RODE_COMPAT_CHECK((a) != (b))
#define CHECK_LE(a, b) RODE_COMPAT_CHECK((a) <= (b))
#define CHECK_LT(a, b) RODE_COMPAT_CHECK((a) < (b))
#define CHECK_GE(a, b) RODE_COMPAT_CHECK((a) >= (b))
#define CHECK_GT(a, b) RODE_COMPAT_CHECK((a) > (b))
