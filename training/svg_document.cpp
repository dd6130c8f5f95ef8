#include "training/svg_document.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"

namespace sgnn::training {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string svg_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

std::string svg_text(double x, double y, const std::string& content, const std::string& attributes) {
  return "<text x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" " + attributes + ">" + xml_escape(content) +
         "</text>\n";
}

std::string svg_rect(double x, double y, double width, double height, const std::string& attributes) {
  return "<rect x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" width=\"" + svg_number(width) +
         "\" height=\"" + svg_number(height) + "\" " + attributes + "/>\n";
}

std::string svg_document(double width, double height, const std::string& title, const std::string& body) {
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg_number(width) + "\" height=\"" +
         svg_number(height) + "\" viewBox=\"0 0 " + svg_number(width) + " " + svg_number(height) +
         "\" font-family=\"sans-serif\">\n";
  svg += "<title>" + xml_escape(title) + "</title>\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += body;
  svg += "</svg>\n";
  return svg;
}

namespace {

// Closes the descriptor on every path out of write_svg_file.
struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void write_svg_file(const std::filesystem::path& path, const std::string& svg) {
  const std::string name = path.string();
  static std::atomic<uint64_t> counter{0};
  const std::filesystem::path temporary =
      name + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  auto fail = [&](const char* what) {
    const std::string reason = std::string(what) + ": " + std::strerror(errno);
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw IoError(name, 0, reason);
  };
  FileDescriptor out{::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
  if (out.fd < 0) throw IoError(name, 0, std::string("cannot create a file there: ") + std::strerror(errno));
  std::size_t written = 0;
  while (written < svg.size()) {
    const ssize_t n = ::write(out.fd, svg.data() + written, svg.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write failed");
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(out.fd) != 0) fail("fsync failed");
  const int fd = out.fd;
  out.fd = -1;
  if (::close(fd) != 0) fail("close failed");
  if (::rename(temporary.c_str(), path.c_str()) != 0) fail("cannot rename the temporary file into place");
}

}  // namespace sgnn::training
