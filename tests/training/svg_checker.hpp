// A small XML well-formedness check for the SVG we write (tests only): tags
// close in order, attributes are quoted, entities are the five XML ones, no
// stray '<' / '>' in text, exactly one root element and it is <svg>.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace sgnn::testing {

inline bool well_formed_svg(const std::string& xml, std::string& problem) {
  std::vector<std::string> open;
  int roots = 0;
  std::size_t i = 0;
  while (i < xml.size()) {
    if (xml[i] == '&') {
      const std::size_t end = xml.find(';', i);
      const std::string entity = xml.substr(i, end == std::string::npos ? 0 : end - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&apos;") {
        problem = "bad entity at " + std::to_string(i);
        return false;
      }
      i = end + 1;
      continue;
    }
    if (xml[i] != '<') {
      if (xml[i] == '>') {
        problem = "stray '>' at " + std::to_string(i);
        return false;
      }
      if (open.empty() && !std::isspace(static_cast<unsigned char>(xml[i]))) {
        problem = "text outside the root element at " + std::to_string(i);
        return false;
      }
      ++i;
      continue;
    }
    const std::size_t end = xml.find('>', i);
    if (end == std::string::npos) {
      problem = "unterminated tag";
      return false;
    }
    const std::string tag = xml.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.starts_with("?")) continue;
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1)) {
        problem = "unexpected </" + tag.substr(1) + ">";
        return false;
      }
      open.pop_back();
      continue;
    }
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0 || tag.find('<') != std::string::npos) {
      problem = "bad attributes in <" + tag + ">";
      return false;
    }
    const std::string name = tag.substr(0, tag.find_first_of(" \n/"));
    if (open.empty()) {
      if (++roots > 1 || name != "svg") {
        problem = "the root must be one <svg>, found <" + name + ">";
        return false;
      }
    }
    if (tag.ends_with("/")) continue;
    open.push_back(name);
  }
  if (!open.empty()) problem = "unclosed <" + open.back() + ">";
  else if (roots == 0) problem = "no root element";
  return open.empty() && roots == 1;
}

// How often `needle` occurs in `text`.
inline std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

}  // namespace sgnn::testing
