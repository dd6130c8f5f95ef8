// Hyperparameters of a model kind, as its registry entry declares them
// (training/nn/model_registry.hpp): a name, a type, a default with
// per-dataset overrides, a range and one line of help. Programs turn each
// into a flag (the name with '-' for '_': "output_heads" is --output-heads),
// a checkpoint stores the model's ones in its description, and
// checked_value refuses a bad value before anything is built.
//
// Values travel as text, the form a command line gives them: integers in
// decimal ("16"), numbers as decimals ("0.005", "5e-4"), switches "on" or
// "off", choices one of their words. checked_value returns the stored form
// (integers and numbers re-printed shortest round-trip, "true"/"false"
// accepted for switches), so two spellings of one value compare equal.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace sgnn::training {

enum class HyperparameterType : unsigned char {
  Integer,  // int64
  Number,   // float32
  Switch,   // on | off
  Choice,   // one of Hyperparameter::choices
};

// What a hyperparameter is for, which decides where it is kept:
//   Architecture    the model's shape or function (hidden, heads, K, alpha):
//                   in the description; resuming with another value is refused.
//   Regularization  training only (dropout): in the description, so the
//                   model rebuilds as trained; a resumed run may change it.
//   Optimization    the optimizer and the trainer (epochs, lr, weight decay,
//                   patience, monitor): not in the description.
enum class HyperparameterRole : unsigned char { Architecture, Regularization, Optimization };

// The accepted values of an Integer or Number: [low, high] with either end
// open.
struct ValueRange {
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  bool low_open = false;
  bool high_open = false;

  static ValueRange any() { return {}; }
  static ValueRange positive() { return {0.0, std::numeric_limits<double>::infinity(), true, false}; }
  static ValueRange non_negative() { return {0.0, std::numeric_limits<double>::infinity(), false, false}; }
  static ValueRange probability() { return {0.0, 1.0, false, true}; }  // [0, 1): dropout
  static ValueRange unit_interval() { return {0.0, 1.0, false, false}; }  // [0, 1]
  static ValueRange between(double low, double high) { return {low, high, false, false}; }  // [low, high]
  bool contains(double value) const;
  std::string text() const;  // "positive", "non-negative", "in [0, 1)", "at least 2", ...
};

struct Hyperparameter {
  // Every member has an initializer, so that entries may name only those
  // they set: {.name = "hidden", .type = ..., .default_value = "16", ...}.
  std::string name{};  // lowercase snake_case: "output_heads"
  HyperparameterType type = HyperparameterType::Integer;
  std::string default_value{};  // as on the command line: "8", "0.6", "on", "accuracy"
  std::string help{};           // one line; the flag's help appends the defaults
  HyperparameterRole role = HyperparameterRole::Architecture;
  ValueRange range{};                  // Integer and Number
  std::vector<std::string> choices{};  // Choice
  // Defaults of particular datasets, by lowercase name: {{"pubmed", "8"}}.
  std::map<std::string, std::string> dataset_defaults{};
};

// "--output-heads" for "output_heads".
std::string flag_name(const Hyperparameter& hyperparameter);

// `text` in its stored form, or InvalidArgument "<context>: <flag> must be
// <range or choices>, got "<text>"". `context` names the model ("model gat";
// empty: no prefix).
std::string checked_value(const Hyperparameter& hyperparameter, const std::string& text, const std::string& context);

// The key dataset_defaults are looked up with: the dataset's name or its
// path's last component, lowercased ("data/PubMed/" -> "pubmed").
std::string dataset_key(const std::string& dataset);

// The default for `dataset` (a name or path; empty: the general default).
const std::string& default_for(const Hyperparameter& hyperparameter, const std::string& dataset);

// "16", "16; 8 on pubmed": the defaults as a flag's help shows them.
std::string defaults_text(const Hyperparameter& hyperparameter);

// A float in stored form (shortest round-trip decimal): "0.5".
std::string number_text(float value);

// Typed reading of a stored value (checked_value's form). InvalidArgument
// naming `context` and the name for a value of another type.
int64_t integer_value(const std::string& text, const std::string& name, const std::string& context);
float number_value(const std::string& text, const std::string& name, const std::string& context);
bool switch_value(const std::string& text, const std::string& name, const std::string& context);

}  // namespace sgnn::training
