#include "graph_io/readers/pickle.hpp"

#include <cstring>
#include <unordered_map>

#include "core/error.hpp"
#include "graph_io/readers/file_text.hpp"

namespace sgnn::graph_io::pickle {

namespace {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "a bool";
    case Kind::Int: return "an int";
    case Kind::Float: return "a float";
    case Kind::Bytes: return "a byte string";
    case Kind::Text: return "a unicode string";
    case Kind::Tuple: return "a tuple";
    case Kind::List: return "a list";
    case Kind::Dict: return "a dict";
    case Kind::Global: return "a global";
    case Kind::Object: return "an object";
  }
  return "a value";
}

// The unpickling machine: a stack of values, a stack of MARK positions and the
// memo. Values are created in `values` (owned by the Document).
class Parser {
 public:
  Parser(std::string_view input, const std::string& name, const Limits& limits, std::deque<Value>& values)
      : input_(input), name_(name), limits_(limits), values_(values) {}

  const Value* run() {
    while (position_ < input_.size()) {
      opcode_offset_ = position_;
      const auto opcode = static_cast<unsigned char>(input_[position_++]);
      if (opcode == '.') return stop();
      step(opcode);
    }
    fail("truncated: the pickle ends without a STOP opcode");
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const {
    throw IoError(name_, 0, detail::concat("byte ", opcode_offset_, ": ", reason));
  }

  std::string_view take(std::size_t count, const char* what) {
    const std::size_t left = input_.size() - position_;
    if (count > left) fail(detail::concat("truncated: ", what, " needs ", count, " bytes, ", left, " left"));
    const std::string_view bytes = input_.substr(position_, count);
    position_ += count;
    return bytes;
  }
  uint64_t little_endian(std::size_t count, const char* what) {
    const std::string_view bytes = take(count, what);
    uint64_t value = 0;
    for (std::size_t i = count; i-- > 0;) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
    return value;
  }
  std::string_view string_of(std::size_t length, const char* what) {
    if (length > limits_.max_string_bytes) {
      fail(detail::concat(what, " of ", length, " bytes is over the limit of ", limits_.max_string_bytes));
    }
    return take(length, what);
  }
  std::string_view line(const char* what) {
    const std::size_t newline = input_.find('\n', position_);
    if (newline == std::string_view::npos) fail(detail::concat("truncated: ", what, " has no end of line"));
    const std::size_t length = newline - position_;
    return string_of(length + 1, what).substr(0, length);
  }

  Value& make(Kind kind) {
    if (values_.size() >= limits_.max_values) fail(detail::concat("more than ", limits_.max_values, " values"));
    Value& value = values_.emplace_back();
    value.kind = kind;
    return value;
  }
  void push(const Value& value) {
    if (stack_.size() >= limits_.max_stack) fail(detail::concat("stack deeper than ", limits_.max_stack, " values"));
    stack_.push_back(const_cast<Value*>(&value));  // values are mutable while parsing (APPEND, SETITEM, BUILD)
  }
  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  Value& top(const char* opcode) {
    if (stack_.size() <= floor()) fail(detail::concat(opcode, " on an empty stack"));
    return *stack_.back();
  }
  Value& pop(const char* opcode) {
    Value& value = top(opcode);
    stack_.pop_back();
    return value;
  }
  std::vector<const Value*> pop_to_mark(const char* opcode) {
    if (marks_.empty()) fail(detail::concat(opcode, " without a MARK"));
    std::vector<const Value*> popped(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return popped;
  }
  void add_items(Value& container, const std::vector<const Value*>& items) {
    if (items.size() > limits_.max_items - total_items_) {
      fail(detail::concat("more than ", limits_.max_items, " container elements"));
    }
    total_items_ += items.size();
    container.items.insert(container.items.end(), items.begin(), items.end());
  }

  void push_tuple(std::vector<const Value*> items) {
    Value& tuple = make(Kind::Tuple);
    add_items(tuple, items);
    push(tuple);
  }
  void push_tuple_of(std::size_t count, const char* opcode) {
    std::vector<const Value*> items(count);
    for (std::size_t i = count; i-- > 0;) items[i] = &pop(opcode);
    push_tuple(std::move(items));
  }
  void push_int(int64_t integer) {
    Value& value = make(Kind::Int);
    value.integer = integer;
    push(value);
  }
  void push_string(Kind kind, std::string_view text) {
    Value& value = make(kind);
    value.text = text;
    push(value);
  }
  void push_bool(bool boolean) {
    Value& value = make(Kind::Bool);
    value.boolean = boolean;
    push(value);
  }

  void append(Value& list, const std::vector<const Value*>& items, const char* opcode) {
    if (list.kind != Kind::List) fail(detail::concat(opcode, " to ", describe(list), ", expected a list"));
    add_items(list, items);
  }
  void set_items(Value& dict, const std::vector<const Value*>& items, const char* opcode) {
    if (dict.kind != Kind::Dict && dict.kind != Kind::Object) {
      fail(detail::concat(opcode, " on ", describe(dict), ", expected a dict"));
    }
    if (items.size() % 2 != 0) {
      fail(detail::concat(opcode, " with an odd number (", items.size(), ") of keys and values"));
    }
    add_items(dict, items);
  }
  void call(const char* opcode) {
    const Value& arguments = pop(opcode);
    const Value& callable = pop(opcode);
    if (callable.kind != Kind::Global) {
      fail(detail::concat(opcode, " calls ", describe(callable), ", expected a global"));
    }
    if (arguments.kind != Kind::Tuple) {
      fail(detail::concat(opcode, " arguments are ", describe(arguments), ", expected a tuple"));
    }
    Value& object = make(Kind::Object);
    object.callable = &callable;
    object.arguments = &arguments;
    push(object);
  }
  void memo_put(uint64_t index) {
    Value& value = top("PUT");
    auto [entry, inserted] = memo_.try_emplace(index, &value);
    if (inserted && memo_.size() > limits_.max_memo) {
      fail(detail::concat("more than ", limits_.max_memo, " memo entries"));
    }
    entry->second = &value;
  }
  void memo_get(uint64_t index) {
    const auto found = memo_.find(index);
    if (found == memo_.end()) fail(detail::concat("GET of memo index ", index, ", which was never PUT"));
    push(*found->second);
  }

  const Value* stop() {
    if (!marks_.empty()) fail("STOP with a MARK still open");
    if (stack_.size() != 1) fail(detail::concat("STOP with ", stack_.size(), " values on the stack, expected 1"));
    if (position_ != input_.size()) fail(detail::concat(input_.size() - position_, " bytes after STOP"));
    return stack_.back();
  }

  void step(unsigned char opcode) {
    switch (opcode) {
      case 0x80: {  // PROTO
        const uint64_t version = little_endian(1, "PROTO");
        if (version > 2) fail(detail::concat("pickle protocol ", version, " (this reader handles Python 2's, 0 to 2)"));
        return;
      }
      case '(':  // MARK
        if (marks_.size() >= limits_.max_depth) fail(detail::concat("more than ", limits_.max_depth, " nested MARKs"));
        marks_.push_back(stack_.size());
        return;
      case 'N': push(make(Kind::None)); return;
      case 0x88: push_bool(true); return;   // NEWTRUE
      case 0x89: push_bool(false); return;  // NEWFALSE
      case 'K': push_int(static_cast<int64_t>(little_endian(1, "BININT1"))); return;
      case 'M': push_int(static_cast<int64_t>(little_endian(2, "BININT2"))); return;
      case 'J': push_int(static_cast<int32_t>(static_cast<uint32_t>(little_endian(4, "BININT")))); return;
      case 0x8a: {  // LONG1: n bytes of two's complement, little-endian
        const auto count = static_cast<std::size_t>(little_endian(1, "LONG1"));
        if (count > 8) fail(detail::concat("LONG1 integer of ", count, " bytes does not fit in 64 bits"));
        uint64_t value = little_endian(count, "LONG1");
        if (count > 0 && count < 8 && (value >> (8 * count - 1)) != 0) value |= ~uint64_t{0} << (8 * count);
        push_int(static_cast<int64_t>(value));
        return;
      }
      case 'G': {  // BINFLOAT: big-endian IEEE double
        const std::string_view bytes = take(8, "BINFLOAT");
        uint64_t bits = 0;
        for (const char byte : bytes) bits = (bits << 8) | static_cast<unsigned char>(byte);
        Value& value = make(Kind::Float);
        std::memcpy(&value.number, &bits, sizeof bits);
        push(value);
        return;
      }
      case 'U': push_string(Kind::Bytes, string_of(little_endian(1, "SHORT_BINSTRING"), "SHORT_BINSTRING")); return;
      case 'T': {
        const auto length = static_cast<int32_t>(static_cast<uint32_t>(little_endian(4, "BINSTRING")));
        if (length < 0) fail(detail::concat("BINSTRING with a negative length ", length));
        push_string(Kind::Bytes, string_of(static_cast<std::size_t>(length), "BINSTRING"));
        return;
      }
      case 'X': push_string(Kind::Text, string_of(little_endian(4, "BINUNICODE"), "BINUNICODE")); return;
      case ')': push_tuple({}); return;  // EMPTY_TUPLE
      case 0x85: push_tuple_of(1, "TUPLE1"); return;
      case 0x86: push_tuple_of(2, "TUPLE2"); return;
      case 0x87: push_tuple_of(3, "TUPLE3"); return;
      case 't': push_tuple(pop_to_mark("TUPLE")); return;
      case ']': push(make(Kind::List)); return;  // EMPTY_LIST
      case '}': push(make(Kind::Dict)); return;  // EMPTY_DICT
      case 'a': {  // APPEND
        const Value* item = &pop("APPEND");
        append(top("APPEND"), {item}, "APPEND");
        return;
      }
      case 'e': {  // APPENDS
        const std::vector<const Value*> items = pop_to_mark("APPENDS");
        append(top("APPENDS"), items, "APPENDS");
        return;
      }
      case 's': {  // SETITEM
        const Value* value = &pop("SETITEM");
        const Value* key = &pop("SETITEM");
        set_items(top("SETITEM"), {key, value}, "SETITEM");
        return;
      }
      case 'u': {  // SETITEMS
        const std::vector<const Value*> items = pop_to_mark("SETITEMS");
        set_items(top("SETITEMS"), items, "SETITEMS");
        return;
      }
      case 'c': {  // GLOBAL "module\nname\n"
        Value& global = make(Kind::Global);
        global.text = line("GLOBAL module");
        global.name = line("GLOBAL name");
        push(global);
        return;
      }
      case 'R': call("REDUCE"); return;
      case 0x81: call("NEWOBJ"); return;
      case 'b': {  // BUILD
        const Value& state = pop("BUILD");
        Value& object = top("BUILD");
        if (object.kind != Kind::Object) fail(detail::concat("BUILD on ", describe(object), ", expected an object"));
        if (object.state != nullptr) fail("BUILD on an object that already has a state");
        object.state = &state;
        return;
      }
      case 'q': memo_put(little_endian(1, "BINPUT")); return;
      case 'r': memo_put(little_endian(4, "LONG_BINPUT")); return;
      case 'h': memo_get(little_endian(1, "BINGET")); return;
      case 'j': memo_get(little_endian(4, "LONG_BINGET")); return;
      default: {
        const bool printable = opcode >= 0x20 && opcode < 0x7f;
        fail(detail::concat("unsupported pickle opcode 0x", "0123456789abcdef"[opcode >> 4],
                            "0123456789abcdef"[opcode & 15],
                            printable ? detail::concat(" ('", static_cast<char>(opcode), "')") : std::string()));
      }
    }
  }

  std::string_view input_;
  const std::string& name_;
  const Limits& limits_;
  std::deque<Value>& values_;
  std::size_t position_ = 0;
  std::size_t opcode_offset_ = 0;
  std::size_t total_items_ = 0;
  std::vector<Value*> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<uint64_t, Value*> memo_;
};

}  // namespace

const Value* Value::find(std::string_view key) const {
  const Value* found = nullptr;
  if (kind != Kind::Dict && kind != Kind::Object) return found;
  for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
    if (items[i]->is_string() && items[i]->text == key) found = items[i + 1];
  }
  return found;
}

std::string describe(const Value& value) {
  switch (value.kind) {
    case Kind::Tuple:
    case Kind::List: return detail::concat(kind_name(value.kind), " of ", value.items.size());
    case Kind::Global: return detail::concat("the global ", value.text, ".", value.name);
    case Kind::Object: return detail::concat("an object built by ", value.callable->text, ".", value.callable->name);
    default: return kind_name(value.kind);
  }
}

Document parse(std::string bytes, std::string name, const Limits& limits) {
  Document document;
  document.name_ = std::move(name);
  if (bytes.size() > limits.max_input_bytes) {
    throw IoError(document.name_, 0,
                  detail::concat("pickle of ", bytes.size(), " bytes is over the limit of ", limits.max_input_bytes));
  }
  document.bytes_ = std::make_unique<const std::string>(std::move(bytes));
  document.values_ = std::make_unique<std::deque<Value>>();
  Parser parser(*document.bytes_, document.name_, limits, *document.values_);
  document.root_ = parser.run();
  return document;
}

Document read_file(const std::filesystem::path& file, const Limits& limits) {
  std::error_code error;
  const auto size = std::filesystem::file_size(file, error);
  if (!error && size > limits.max_input_bytes) {
    throw IoError(file.string(), 0,
                  detail::concat("file of ", size, " bytes is over the pickle limit of ", limits.max_input_bytes));
  }
  return parse(read_file_text(file), file.string(), limits);
}

}  // namespace sgnn::graph_io::pickle
