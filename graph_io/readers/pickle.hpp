// Python pickles, the subset that Python 2's cPickle wrote for numpy arrays,
// scipy.sparse matrices and dicts of lists (protocol 2; the Planetoid files).
//
//   parse(bytes, name)  runs the opcodes into a tree of Values and returns the
//                       Document that owns them (and the bytes their strings
//                       point into). Nothing is called or imported: a GLOBAL
//                       is kept as a name, REDUCE/NEWOBJ as an Object that
//                       records its callable and arguments, BUILD as its state.
//
// Opcodes: PROTO (0-2), STOP, MARK, NONE, NEWTRUE/NEWFALSE, BININT/BININT1/
// BININT2, LONG1 (up to 8 bytes), BINFLOAT, SHORT_BINSTRING/BINSTRING (bytes),
// BINUNICODE (text), EMPTY_TUPLE/TUPLE1/2/3/TUPLE, EMPTY_LIST/APPEND/APPENDS,
// EMPTY_DICT/SETITEM/SETITEMS (also on an Object: a dict subclass such as
// collections.defaultdict), GLOBAL, REDUCE, NEWOBJ, BUILD, BINPUT/LONG_BINPUT,
// BINGET/LONG_BINGET. Any other opcode, a truncated file, a length past the
// bytes left or past Limits, a stack underflow, an unknown memo index, bytes
// after STOP: IoError(name, 0, "byte <offset>: <reason>").
//
// Values may share children (the memo) and may even reach themselves (a list
// appended to itself); the Document owns all of them, so nothing leaks, and
// readers of the tree walk a fixed shape instead of recursing on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sgnn::graph_io::pickle {

enum class Kind : uint8_t { None, Bool, Int, Float, Bytes, Text, Tuple, List, Dict, Global, Object };

struct Value {
  Kind kind = Kind::None;
  bool boolean = false;              // Bool
  int64_t integer = 0;               // Int
  double number = 0.0;               // Float
  std::string_view text;             // Bytes, Text: the contents; Global: the module ("numpy")
  std::string_view name;             // Global: the attribute ("ndarray")
  std::vector<const Value*> items;   // Tuple, List: elements; Dict and dict-like Object: key, value, key, value, ...
  const Value* callable = nullptr;   // Object: the Global it was built by
  const Value* arguments = nullptr;  // Object: its argument Tuple
  const Value* state = nullptr;      // Object: the state BUILD gave it (nullptr if none)

  bool is_string() const { return kind == Kind::Bytes || kind == Kind::Text; }
  bool is_global(std::string_view module, std::string_view attribute) const {
    return kind == Kind::Global && text == module && name == attribute;
  }
  // An Object built by the Global `module.attribute`.
  bool built_by(std::string_view module, std::string_view attribute) const {
    return kind == Kind::Object && callable->is_global(module, attribute);
  }
  // Dict or dict-like Object: the value of the last entry whose key is the
  // string `key` (a later SETITEM overwrites, as in Python); nullptr if none.
  const Value* find(std::string_view key) const;
};

// "an int", "a tuple of 3", "an object built by numpy.dtype", ... for error messages.
std::string describe(const Value& value);

// Bounds on what a pickle may make; every one is checked before the memory is
// taken. Strings point into the input, so their total is bounded by its size.
struct Limits {
  std::size_t max_input_bytes = std::size_t{2} << 30;
  std::size_t max_string_bytes = std::size_t{1} << 30;  // one bytes/text value or GLOBAL line
  std::size_t max_values = std::size_t{1} << 24;        // values created (each int, string, container, ...)
  std::size_t max_items = std::size_t{1} << 26;         // container elements in all (a dict entry counts 2)
  std::size_t max_stack = std::size_t{1} << 20;         // values on the stack at once
  std::size_t max_depth = 256;                          // MARKs open at once (nesting)
  std::size_t max_memo = std::size_t{1} << 20;          // memo entries
};

class Document {
 public:
  const Value& root() const { return *root_; }
  const std::string& name() const { return name_; }  // the file, for error messages

 private:
  friend Document parse(std::string bytes, std::string name, const Limits& limits);
  std::string name_;
  std::unique_ptr<const std::string> bytes_;   // Bytes/Text/Global views point here
  std::unique_ptr<std::deque<Value>> values_;  // stable addresses
  const Value* root_ = nullptr;
};

Document parse(std::string bytes, std::string name, const Limits& limits = {});

// Reads `file` (plain or gzip) and parses it; errors name the file.
Document read_file(const std::filesystem::path& file, const Limits& limits = {});

}  // namespace sgnn::graph_io::pickle
