#include "training/output/svg_document.hpp"

#include <cstdio>

#include "core/error.hpp"
#include "graph_io/atomic_file.hpp"

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

void write_svg_file(const std::filesystem::path& path, const std::string& svg) {
  graph_io::write_file_atomically(path, [&](int fd) { graph_io::write_all(fd, svg.data(), svg.size(), path.string()); });
}

}  // namespace sgnn::training
