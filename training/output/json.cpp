#include "training/output/json.hpp"

#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace sgnn::training {

void JsonWriter::before_value() {
  SGNN_CHECK(!done_, "JsonWriter: the document is already complete");
  if (scopes_.empty()) return;
  if (scopes_.back() == Scope::Object) {
    SGNN_CHECK(key_pending_, "JsonWriter: a value inside an object needs a key first");
    key_pending_ = false;
    return;
  }
  if (!first_.back()) text_ += ',';
  first_.back() = false;
}

void JsonWriter::append_string(std::string_view text) {
  text_ += '"';
  for (const char c : text) {
    switch (c) {
      case '"': text_ += "\\\""; break;
      case '\\': text_ += "\\\\"; break;
      case '\n': text_ += "\\n"; break;
      case '\r': text_ += "\\r"; break;
      case '\t': text_ += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          text_ += escaped;
        } else {
          text_ += c;
        }
    }
  }
  text_ += '"';
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  text_ += '{';
  scopes_.push_back(Scope::Object);
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  text_ += '[';
  scopes_.push_back(Scope::Array);
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  SGNN_CHECK(!scopes_.empty() && scopes_.back() == Scope::Object && !key_pending_,
             "JsonWriter: end_object without an open object (or after a key without its value)");
  text_ += '}';
  scopes_.pop_back();
  first_.pop_back();
  done_ = scopes_.empty();
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  SGNN_CHECK(!scopes_.empty() && scopes_.back() == Scope::Array, "JsonWriter: end_array without an open array");
  text_ += ']';
  scopes_.pop_back();
  first_.pop_back();
  done_ = scopes_.empty();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  SGNN_CHECK(!scopes_.empty() && scopes_.back() == Scope::Object && !key_pending_,
             "JsonWriter: key \"", name, "\" outside an object or right after another key");
  if (!first_.back()) text_ += ',';
  first_.back() = false;
  append_string(name);
  text_ += ':';
  key_pending_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  append_string(text);
  done_ = scopes_.empty();
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();
  before_value();
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", number);
  text_ += buffer;
  done_ = scopes_.empty();
  return *this;
}

JsonWriter& JsonWriter::value(int64_t number) {
  before_value();
  text_ += std::to_string(number);
  done_ = scopes_.empty();
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  before_value();
  text_ += flag ? "true" : "false";
  done_ = scopes_.empty();
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  text_ += "null";
  done_ = scopes_.empty();
  return *this;
}

std::string JsonWriter::str() const {
  SGNN_CHECK(scopes_.empty() && done_, "JsonWriter: the document is incomplete (", scopes_.size(),
             " open object/array scopes)");
  return text_;
}

}  // namespace sgnn::training
