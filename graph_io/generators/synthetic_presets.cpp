#include "graph_io/generators/synthetic_presets.hpp"

#include <array>

#include "core/error.hpp"

namespace sgnn::graph_io {

namespace {

struct Preset {
  std::string_view name;
  int64_t nodes, edges_drawn, features, classes;
  uint64_t seed;
};

// Edges drawn per direction; R-MAT repeats shrink the count (85M drawn on
// 232,965 nodes leave 109.3M directed edges, the size issue 4 and issue 7 name).
constexpr std::array<Preset, 2> kPresets{{
    {"reddit-scale", 232965, 85000000, 602, 41, 1},
    {"products-scale", 2449029, 61000000, 100, 47, 2},
}};

}  // namespace

SyntheticOptions synthetic_preset(std::string_view name) {
  for (const Preset& preset : kPresets) {
    if (preset.name != name) continue;
    SyntheticOptions options;
    options.kind = SyntheticKind::Rmat;
    options.num_nodes = preset.nodes;
    options.num_edges = preset.edges_drawn;
    options.symmetric = true;
    options.num_features = preset.features;
    options.num_classes = preset.classes;
    options.seed = preset.seed;
    return options;
  }
  std::string known;
  for (const Preset& preset : kPresets) known += (known.empty() ? "" : ", ") + std::string(preset.name);
  throw InvalidArgument("synthetic_preset: unknown preset '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> processed_preset_names() { return {"papers100m-scale"}; }

std::vector<std::string> synthetic_preset_names() {
  std::vector<std::string> names;
  for (const Preset& preset : kPresets) names.emplace_back(preset.name);
  return names;
}

}  // namespace sgnn::graph_io
