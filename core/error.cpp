#include "core/error.hpp"

#include <string_view>

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
void throw_check_failure(const char* condition, const char* signature, const std::string& message) {
  // The message is for the user; the function helps us when they report it.
  throw InvalidArgument(concat(message, " [check '", condition, "' in ", function_name(signature), "]"));
}

std::string function_name(const char* signature) {
  const std::string_view text = signature;
  // The parameter list opens at the first '(' outside template arguments
  // (a lambda's "<lambda(...)>" is part of the name).
  std::size_t open = std::string_view::npos;
  int angle = 0;
  for (std::size_t i = 0; i < text.size() && open == std::string_view::npos; ++i) {
    if (text[i] == '<') ++angle;
    if (text[i] == '>') --angle;
    if (text[i] == '(' && angle == 0) open = i;
  }
  const std::string_view head = text.substr(0, open);
  // The return type ends at the last space outside template arguments.
  std::size_t start = 0;
  angle = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '<') ++angle;
    if (head[i] == '>') --angle;
    if (head[i] == ' ' && angle == 0) start = i + 1;
  }
  return std::string(head.substr(start));
}
}  // namespace detail

}  // namespace sgnn
