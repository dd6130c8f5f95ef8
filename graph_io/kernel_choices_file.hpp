// The kernel choices timed on a graph (ops/kernel_choices.hpp), stored beside
// its adjacency cache so that later runs with the same cache make the same
// choices without timing: <adjacency cache file>.choices, a small section
// file (kind "kernel-choices") keyed by the adjacency cache's fingerprint,
// whose metadata are the choices and the device model they were timed on
// (another model is timed again). Written atomically; a missing, damaged,
// stale or foreign file is reported by load (nullopt) and replaced by the
// next store, never trusted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace sgnn::graph_io {

using ChoiceMap = std::map<std::string, std::string>;

std::filesystem::path kernel_choices_path(const std::filesystem::path& adjacency_cache_file);

// Throws IoError when the file cannot be written.
void store_kernel_choices(const std::filesystem::path& file, uint64_t fingerprint, const std::string& device_model,
                          const ChoiceMap& choices);

// nullopt with `problem` set when unusable (`problem` empty when absent).
std::optional<ChoiceMap> load_kernel_choices(const std::filesystem::path& file, uint64_t fingerprint,
                                             const std::string& device_model, std::string& problem);

}  // namespace sgnn::graph_io
