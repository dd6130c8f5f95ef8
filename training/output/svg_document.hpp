// The project's one SVG writer: escaping, number formatting, the document
// frame and an atomic file write. Training curves (svg_plot.hpp) and graph
// pictures (svg_graph.hpp) build their markup from these pieces; no plotting
// dependency.
#pragma once

#include <filesystem>
#include <string>

namespace sgnn::training {

// Escapes &, <, >, " and ' for XML text and attribute values.
std::string xml_escape(const std::string& text);

// A coordinate or size with two decimals ("12.50"); the SVG stays compact.
std::string svg_number(double value);

// <text x= y= ATTRIBUTES>escaped content</text>; `attributes` is raw markup.
std::string svg_text(double x, double y, const std::string& content, const std::string& attributes);

// <rect x= y= width= height= ATTRIBUTES/>; `attributes` is raw markup.
std::string svg_rect(double x, double y, double width, double height, const std::string& attributes);

// A complete document: XML declaration, <svg> root of the given size, the
// escaped <title>, a white background, then `body` (raw markup).
std::string svg_document(double width, double height, const std::string& title, const std::string& body);

// Writes `svg` to `path` atomically: a temporary file in the same folder,
// fsync, rename. The folder must exist. IoError(path, 0, reason) when it
// cannot be written; `path` is then untouched and no temporary file is left.
void write_svg_file(const std::filesystem::path& path, const std::string& svg);

}  // namespace sgnn::training
