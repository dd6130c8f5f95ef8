// JsonWriter: builds one JSON document as text (no dependency). Keys and
// strings are escaped; doubles are written with 17 significant digits, NaN
// and infinities as null (JSON has no spelling for them). Misuse (a value
// without a key inside an object, unbalanced end_*) throws InvalidArgument.
//
//   JsonWriter json;
//   json.begin_object().key("runs").value(int64_t{10}).key("accuracy").value(0.815).end_object();
//   std::string text = json.str();
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sgnn::training {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(double number);
  JsonWriter& value(int64_t number);
  JsonWriter& value(bool flag);
  JsonWriter& null();
  // Shorthand for key(name).value(v).
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }

  // The document; InvalidArgument while an object or array is still open.
  std::string str() const;

 private:
  enum class Scope : unsigned char { Object, Array };
  void before_value();
  void append_string(std::string_view text);

  std::string text_;
  std::vector<Scope> scopes_;
  std::vector<bool> first_;   // per open scope: no element written yet
  bool key_pending_ = false;  // in an object, a key was written and awaits its value
  bool done_ = false;         // the top-level value is complete
};

}  // namespace sgnn::training
