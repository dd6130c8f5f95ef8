#include "training/nn/hyperparameters.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>

#include "core/error.hpp"

namespace sgnn::training {

namespace {

std::string shortest(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

template <typename T>
bool parse_whole(const std::string& text, T& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

[[noreturn]] void refuse(const Hyperparameter& h, const std::string& text, const std::string& context,
                         const std::string& expected) {
  throw InvalidArgument(detail::concat(context.empty() ? "" : context + ": ", flag_name(h), " must be ", expected,
                                       ", got \"", text, "\""));
}

std::string words(const std::vector<std::string>& choices) {
  std::string text;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  }
  return text;
}

}  // namespace

bool ValueRange::contains(double value) const {
  const bool above = low_open ? value > low : value >= low;
  const bool below = high_open ? value < high : value <= high;
  return above && below;
}

std::string ValueRange::text() const {
  const bool bounded_below = std::isfinite(low);
  const bool bounded_above = std::isfinite(high);
  if (bounded_below && !bounded_above) {
    if (low == 0.0) return low_open ? "positive" : "non-negative";
    return (low_open ? "greater than " : "at least ") + shortest(low);
  }
  if (!bounded_below && bounded_above) return (high_open ? "less than " : "at most ") + shortest(high);
  if (!bounded_below) return "a number";
  return detail::concat("in ", low_open ? "(" : "[", shortest(low), ", ", shortest(high), high_open ? ")" : "]");
}

std::string flag_name(const Hyperparameter& hyperparameter) {
  std::string flag = "--" + hyperparameter.name;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string checked_value(const Hyperparameter& h, const std::string& text, const std::string& context) {
  switch (h.type) {
    case HyperparameterType::Integer: {
      int64_t value = 0;
      if (!parse_whole(text, value)) refuse(h, text, context, "an integer");
      if (!h.range.contains(static_cast<double>(value))) refuse(h, text, context, h.range.text());
      return std::to_string(value);
    }
    case HyperparameterType::Number: {
      float value = 0;
      if (!parse_whole(text, value) || !std::isfinite(value)) refuse(h, text, context, "a number");
      if (!h.range.contains(static_cast<double>(value))) refuse(h, text, context, h.range.text());
      return number_text(value);
    }
    case HyperparameterType::Switch:
      if (text == "on" || text == "true") return "on";
      if (text == "off" || text == "false") return "off";
      refuse(h, text, context, "on or off");
    case HyperparameterType::Choice:
      if (std::find(h.choices.begin(), h.choices.end(), text) != h.choices.end()) return text;
      refuse(h, text, context, words(h.choices));
  }
  refuse(h, text, context, "of a known type");
}

std::string dataset_key(const std::string& dataset) {
  const std::filesystem::path path = std::filesystem::path(dataset).lexically_normal();
  std::string name = path.filename().string();
  if (name.empty()) name = path.parent_path().filename().string();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

const std::string& default_for(const Hyperparameter& hyperparameter, const std::string& dataset) {
  if (dataset.empty()) return hyperparameter.default_value;
  const auto found = hyperparameter.dataset_defaults.find(dataset_key(dataset));
  return found == hyperparameter.dataset_defaults.end() ? hyperparameter.default_value : found->second;
}

std::string defaults_text(const Hyperparameter& hyperparameter) {
  std::string text = hyperparameter.default_value;
  for (const auto& [dataset, value] : hyperparameter.dataset_defaults) text += "; " + value + " on " + dataset;
  return text;
}

std::string number_text(float value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

int64_t integer_value(const std::string& text, const std::string& name, const std::string& context) {
  int64_t value = 0;
  SGNN_CHECK(parse_whole(text, value), context, ": hyperparameter \"", name, "\" = \"", text, "\" is not an integer");
  return value;
}

float number_value(const std::string& text, const std::string& name, const std::string& context) {
  float value = 0;
  SGNN_CHECK(parse_whole(text, value) && std::isfinite(value), context, ": hyperparameter \"", name, "\" = \"", text,
             "\" is not a number");
  return value;
}

bool switch_value(const std::string& text, const std::string& name, const std::string& context) {
  SGNN_CHECK(text == "on" || text == "off", context, ": hyperparameter \"", name, "\" = \"", text,
             "\" is not on or off");
  return text == "on";
}

}  // namespace sgnn::training
