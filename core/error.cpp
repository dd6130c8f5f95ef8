#include "core/error.hpp"

#include <filesystem>

namespace sgnn {

namespace {
std::string format_io_message(const std::string& file, int64_t line, const std::string& reason) {
  if (line > 0) return detail::concat(file, ":", line, ": ", reason);
  return detail::concat(file, ": ", reason);
}
}  // namespace

IoError::IoError(std::string file, int64_t line, std::string reason)
    : Error(format_io_message(file, line, reason)),
      file_(std::move(file)),
      line_(line),
      reason_(std::move(reason)) {}

namespace detail {
void throw_check_failure(const char* condition, const char* file, int line,
                         const std::string& message) {
  // The message is for the user; the source location helps us when they report it.
  const std::string where = std::filesystem::path(file).filename().string();
  throw InvalidArgument(concat(message, " [check '", condition, "' at ", where, ":", line, "]"));
}
}  // namespace detail

}  // namespace sgnn
