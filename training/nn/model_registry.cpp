#include "training/nn/model_registry.hpp"

#include <algorithm>
#include <deque>
#include <mutex>
#include <set>

#include "core/error.hpp"
#include "training/nn/builtin_models.hpp"

namespace sgnn::training {

namespace {

bool valid_name(const std::string& name, bool hyphens) {
  if (name.empty() || name.size() > 64 || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  return std::all_of(name.begin(), name.end(), [hyphens](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || (hyphens && c == '-');
  });
}

const Hyperparameter* find_hyperparameter(const std::vector<Hyperparameter>& list, const std::string& name) {
  for (const Hyperparameter& h : list) {
    if (h.name == name) return &h;
  }
  return nullptr;
}

std::string names_of(const std::vector<Hyperparameter>& list) {
  std::string text;
  for (const Hyperparameter& h : list) text += (text.empty() ? "" : ", ") + h.name;
  return text;
}

// Checks one declared hyperparameter (its name, choices, defaults).
void check_declaration(const Hyperparameter& h, const std::string& context) {
  SGNN_CHECK(valid_name(h.name, false), context, ": hyperparameter name \"", h.name,
             "\" is not lowercase letters, digits and '_' starting with a letter");
  SGNN_CHECK(h.type != HyperparameterType::Choice || !h.choices.empty(), context, ": hyperparameter \"", h.name,
             "\" is a choice without choices");
  (void)checked_value(h, h.default_value, context + " (default of " + h.name + ")");
  for (const auto& [dataset, value] : h.dataset_defaults) {
    SGNN_CHECK(!dataset.empty() && dataset == dataset_key(dataset), context, ": hyperparameter \"", h.name,
               "\": dataset default for \"", dataset, "\" (give the lowercase dataset name)");
    (void)checked_value(h, value, context + " (default of " + h.name + " on " + dataset + ")");
  }
}

// The entry as registered: its own hyperparameters checked, then the common
// training ones, each replaced by the entry's declaration of the same name.
ModelEntry checked_entry(ModelEntry entry) {
  const std::string context = "register_model (\"" + entry.name + "\")";
  SGNN_CHECK(valid_name(entry.name, true), context,
             ": a model name is lowercase letters, digits, '_' and '-', starting with a letter");
  SGNN_CHECK(static_cast<bool>(entry.build), context, ": the entry has no build function");
  const std::vector<Hyperparameter>& common = training_hyperparameters();
  std::vector<Hyperparameter> own;
  std::vector<Hyperparameter> training = common;
  std::set<std::string> seen;
  for (Hyperparameter& h : entry.hyperparameters) {
    SGNN_CHECK(seen.insert(h.name).second, context, ": hyperparameter \"", h.name, "\" is declared twice");
    check_declaration(h, context);
    const Hyperparameter* shared = find_hyperparameter(common, h.name);
    if (shared == nullptr) {
      SGNN_CHECK(h.role != HyperparameterRole::Optimization, context, ": hyperparameter \"", h.name,
                 "\": the Optimization role is that of the common training hyperparameters (",
                 names_of(common), "); a model's own are Architecture or Regularization");
      own.push_back(std::move(h));
      continue;
    }
    SGNN_CHECK(h.type == shared->type && h.role == shared->role, context, ": hyperparameter \"", h.name,
               "\" changes a common training hyperparameter, which keeps its type and role");
    *std::find_if(training.begin(), training.end(), [&](const Hyperparameter& t) { return t.name == h.name; }) =
        std::move(h);
  }
  own.insert(own.end(), training.begin(), training.end());
  entry.hyperparameters = std::move(own);
  return entry;
}

struct Registry {
  std::mutex mutex;
  std::deque<ModelEntry> entries;  // a deque: references handed out stay valid as entries are added
  std::vector<std::pair<std::string, std::string>> failures;  // refused ModelRegistrations: name, message
};

void add(Registry& registry, ModelEntry entry) {
  ModelEntry checked = checked_entry(std::move(entry));
  const std::lock_guard lock(registry.mutex);
  for (const ModelEntry& existing : registry.entries) {
    SGNN_CHECK(existing.name != checked.name, "register_model: a model named \"", checked.name,
               "\" is registered already");
  }
  registry.entries.push_back(std::move(checked));
}

// Built once, with the library's kinds, and never destroyed: a plugin's
// registration may run during static initialisation, and lookups may run
// during static destruction.
Registry& registry() {
  static Registry* const instance = [] {
    auto* created = new Registry;
    for (ModelEntry& entry : builtin_models()) add(*created, std::move(entry));
    return created;
  }();
  return *instance;
}

Hyperparameter common(std::string name, HyperparameterType type, std::string default_value, std::string help,
                      ValueRange range, std::vector<std::string> choices = {}) {
  Hyperparameter h;
  h.name = std::move(name);
  h.type = type;
  h.default_value = std::move(default_value);
  h.help = std::move(help);
  h.role = HyperparameterRole::Optimization;
  h.range = range;
  h.choices = std::move(choices);
  return h;
}

}  // namespace

const std::vector<Hyperparameter>& training_hyperparameters() {
  static const std::vector<Hyperparameter> list{
      common("epochs", HyperparameterType::Integer, "200", "training epochs", ValueRange::positive()),
      common("lr", HyperparameterType::Number, "0.01", "Adam learning rate", ValueRange::positive()),
      common("weight_decay", HyperparameterType::Number, "5e-4", "L2 weight decay", ValueRange::non_negative()),
      common("patience", HyperparameterType::Integer, "0",
             "stop after this many epochs without a better validation score, 0 = never", ValueRange::non_negative()),
      common("monitor", HyperparameterType::Choice, "accuracy",
             "validation score for early stopping and the best epoch: accuracy, loss, or loss+accuracy (patience "
             "resets when either improves, the best epoch needs both)",
             ValueRange::any(), {"accuracy", "loss", "loss+accuracy"}),
  };
  return list;
}

Hyperparameter training_default(const std::string& name, std::string default_value,
                                std::map<std::string, std::string> dataset_defaults, std::string help) {
  const Hyperparameter* common = find_hyperparameter(training_hyperparameters(), name);
  SGNN_CHECK(common != nullptr, "training_default: \"", name, "\" is not a common training hyperparameter (",
             names_of(training_hyperparameters()), ")");
  Hyperparameter changed = *common;
  changed.default_value = std::move(default_value);
  changed.dataset_defaults = std::move(dataset_defaults);
  if (!help.empty()) changed.help = std::move(help);
  return changed;
}

void register_model(ModelEntry entry) { add(registry(), std::move(entry)); }

ModelRegistration::ModelRegistration(ModelEntry entry) noexcept {
  const std::string name = entry.name;
  try {
    register_model(std::move(entry));
  } catch (const std::exception& error) {
    try {
      Registry& r = registry();
      const std::lock_guard lock(r.mutex);
      r.failures.emplace_back(name, error.what());
    } catch (...) {  // out of memory while recording: nothing more to do before main
    }
  }
}

std::vector<std::string> registration_failures() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  std::vector<std::string> messages;
  for (const auto& failure : r.failures) messages.push_back(failure.second);
  return messages;
}

const ModelEntry* find_model_entry(const std::string& name) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  for (const ModelEntry& entry : r.entries) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

const ModelEntry& model_entry(const std::string& name) {
  const ModelEntry* entry = find_model_entry(name);
  if (entry == nullptr) {
    std::string known;
    for (const std::string& registered : model_names()) known += (known.empty() ? "" : ", ") + registered;
    std::string refused;
    Registry& r = registry();
    {
      const std::lock_guard lock(r.mutex);
      for (const auto& [failed, message] : r.failures) {
        if (failed == name) refused = "; its registration was refused: " + message;
      }
    }
    throw InvalidArgument(detail::concat("unknown model \"", name, "\" (registered: ", known, ")", refused));
  }
  return *entry;
}

std::vector<std::string> model_names() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const ModelEntry& entry : r.entries) names.push_back(entry.name);
  return names;
}

std::map<std::string, std::string> resolve_hyperparameters(const ModelEntry& entry, const std::string& dataset,
                                                           const std::map<std::string, std::string>& given) {
  const std::string context = "model " + entry.name;
  for (const auto& [name, value] : given) {
    SGNN_CHECK(find_hyperparameter(entry.hyperparameters, name) != nullptr, context, " has no hyperparameter \"",
               name, "\" (its hyperparameters: ", names_of(entry.hyperparameters), ")");
  }
  std::map<std::string, std::string> resolved;
  for (const Hyperparameter& h : entry.hyperparameters) {
    const auto set = given.find(h.name);
    resolved[h.name] = checked_value(h, set != given.end() ? set->second : default_for(h, dataset), context);
  }
  return resolved;
}

ModelDescription describe_model(const ModelEntry& entry, int64_t in_features, int64_t classes,
                                const std::map<std::string, std::string>& hyperparameters,
                                graph_io::FeatureTransform feature_transform, Precision precision,
                                int64_t edge_features) {
  ModelDescription description;
  description.kind = entry.name;
  description.in_features = in_features;
  description.classes = classes;
  description.edge_features = entry.graph.edge_features ? edge_features : 0;
  description.feature_transform = feature_transform;
  description.precision = precision;
  for (const auto& [name, value] : hyperparameters) {
    const Hyperparameter* h = find_hyperparameter(entry.hyperparameters, name);
    if (h == nullptr || h->role != HyperparameterRole::Optimization) description.hyperparameters[name] = value;
  }
  return complete_description(description);
}

ModelDescription complete_description(const ModelDescription& description) {
  const ModelEntry& entry = model_entry(description.kind);
  const std::string context = "model " + entry.name;
  SGNN_CHECK(description.in_features > 0 && description.classes > 0, context, ": in_features (",
             description.in_features, ") and classes (", description.classes, ") must be positive");
  SGNN_CHECK(!entry.graph.edge_features || description.edge_features > 0, context,
             " reads edge features: their width must be positive, got ", description.edge_features,
             " (a dataset without edge features? OGB's raw layout has them in raw/edge-feat.csv.gz)");
  SGNN_CHECK(entry.graph.edge_features || description.edge_features == 0, context,
             " reads no edge features, yet the description gives their width ", description.edge_features);
  ModelDescription complete = description;
  complete.hyperparameters.clear();
  for (const auto& [name, value] : description.hyperparameters) {
    const Hyperparameter* h = find_hyperparameter(entry.hyperparameters, name);
    SGNN_CHECK(h != nullptr, context, " has no hyperparameter \"", name, "\" (its hyperparameters: ",
               names_of(entry.hyperparameters), ")");
    SGNN_CHECK(h->role != HyperparameterRole::Optimization, context, ": \"", name,
               "\" is a training setting, not part of the model's description");
    complete.hyperparameters[name] = checked_value(*h, value, context);
  }
  for (const Hyperparameter& h : entry.hyperparameters) {
    if (h.role != HyperparameterRole::Optimization && !complete.hyperparameters.contains(h.name)) {
      complete.hyperparameters[h.name] = checked_value(h, h.default_value, context);
    }
  }
  return complete;
}

std::optional<ModelMemory> model_memory(const ModelDescription& description, const GraphSize& graph) {
  const ModelEntry& entry = model_entry(description.kind);
  if (!entry.memory) return std::nullopt;
  return entry.memory(complete_description(description), graph);
}

int64_t aggregation_width(const ModelDescription& description) {
  const ModelEntry& entry = model_entry(description.kind);
  return entry.aggregation_width ? entry.aggregation_width(description) : description.classes;
}

}  // namespace sgnn::training
