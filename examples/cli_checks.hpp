// Number checks for CLI11 options with messages a user can act on (CLI11's
// own print the whole double range for a non-number). Header-only, as
// training_cli.hpp.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace sgnn::examples::checks {

inline CLI::Validator number_check(const std::string& description, bool (*accept)(double)) {
  return CLI::Validator(
      [description, accept](std::string& text) -> std::string {
        std::size_t used = 0;
        double value = 0;
        try {
          value = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size()) return "expected a number, got \"" + text + "\"";
        return accept(value) ? "" : "must be " + description + ", got " + text;
      },
      description);
}
inline const CLI::Validator kPositive = number_check("positive", [](double v) { return v > 0; });
inline const CLI::Validator kNonNegative = number_check("non-negative", [](double v) { return v >= 0; });
inline const CLI::Validator kProbability = number_check("in [0, 1)", [](double v) { return v >= 0 && v < 1; });

}  // namespace sgnn::examples::checks
