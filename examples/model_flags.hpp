// The model flags of a program: --model NAME picks a kind of the model
// registry (training/nn/model_registry.hpp) and the kind's hyperparameters
// become flags (--hidden, --heads, --epochs, ...), checked as the registry
// checks them, their help giving the defaults. Header-only, as
// training_cli.hpp; sgnn_train, train_gcn/train_gat, the multi-GPU and
// multi-process programs and bench_multigpu take their model flags from here.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "training/nn/model_registry.hpp"

namespace sgnn::examples {

// The value of --model on the command line, or `fallback`: read before
// CLI11 parses, since the flags of that model must be declared first.
inline std::string requested_model(int argc, char** argv, const std::string& fallback) {
  std::string model = fallback;
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument == "--model" && i + 1 < argc) model = argv[++i];
    if (argument.starts_with("--model=")) model = std::string(argument.substr(8));
  }
  return model;
}

// The paths of every --plugin PATH (or --plugin=PATH) on the command line:
// loaded before CLI11 parses, since their kinds' flags must be declared first.
inline std::vector<std::string> plugin_arguments(int argc, char** argv) {
  std::vector<std::string> plugins;
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument == "--plugin" && i + 1 < argc) plugins.emplace_back(argv[++i]);
    if (argument.starts_with("--plugin=")) plugins.emplace_back(argument.substr(9));
  }
  return plugins;
}

// --plugin PATH, repeatable: a shared library registering model kinds
// (training/nn/model_plugin.hpp), loaded by the caller (plugin_arguments).
inline void add_plugin_option(CLI::App& app, std::vector<std::string>& plugins) {
  app.add_option("--plugin", plugins,
                 "a shared library that registers model kinds (linked against libsparsegnn.so; docs/extending.md), "
                 "loaded first; repeatable")
      ->take_all();
}

// One flag per hyperparameter of `entry` but those in `skip`; a value given
// lands in given[name] (the others take the kind's defaults later:
// training::resolve_hyperparameters).
inline void add_model_flags(CLI::App& app, const training::ModelEntry& entry, std::map<std::string, std::string>& given,
                            const std::set<std::string>& skip = {}) {
  for (const training::Hyperparameter& h : entry.hyperparameters) {
    if (skip.contains(h.name)) continue;
    const std::string name = h.name;
    auto* option = app.add_option_function<std::string>(
        training::flag_name(h), [&given, name](const std::string& value) { given[name] = value; },
        h.help + " (default " + training::defaults_text(h) + ")");
    option->check(CLI::Validator(
        [h](std::string& text) -> std::string {
          try {
            (void)training::checked_value(h, text, "");
            return "";
          } catch (const InvalidArgument& error) {
            return error.what();
          }
        },
        ""));
    switch (h.type) {
      case training::HyperparameterType::Integer: option->type_name("INT"); break;
      case training::HyperparameterType::Number: option->type_name("FLOAT"); break;
      case training::HyperparameterType::Switch: option->type_name("on|off"); break;
      case training::HyperparameterType::Choice: {
        std::string choices;
        for (const std::string& choice : h.choices) choices += (choices.empty() ? "" : "|") + choice;
        option->type_name(choices);
        break;
      }
    }
  }
}

// "gcn, gat, sgc and appnp".
inline std::string model_choices(const std::vector<std::string>& models) {
  std::string text;
  for (std::size_t i = 0; i < models.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == models.size() ? " or " : ", ") + models[i];
  }
  return text;
}

// --model, one of `models` (default: the current value of `model`).
inline void add_model_option(CLI::App& app, std::string& model, const std::vector<std::string>& models,
                             const std::string& note = "") {
  app.add_option("--model", model,
                 "the model: " + model_choices(models) + " (default " + model + ")" + (note.empty() ? "" : "; " + note))
      ->check(CLI::IsMember(models));
}

// What --list-models prints: per model its name, what it is, and its flags
// with their defaults.
inline std::string model_list(const std::vector<std::string>& models, const std::set<std::string>& skip = {}) {
  std::string text;
  for (const std::string& name : models) {
    const training::ModelEntry& entry = training::model_entry(name);
    text += name + "  " + entry.about + "\n";
    for (const training::Hyperparameter& h : entry.hyperparameters) {
      if (skip.contains(h.name)) continue;
      std::string flag = training::flag_name(h);
      flag.resize(std::max<std::size_t>(flag.size(), 20), ' ');
      text += "    " + flag + " " + h.help + " (default " + training::defaults_text(h) + ")\n";
    }
  }
  return text;
}

}  // namespace sgnn::examples
