#include "graph_io/kernel_choices_file.hpp"

#include "graph_io/section_file.hpp"

namespace sgnn::graph_io {

namespace {

constexpr const char* kKind = "kernel-choices";
constexpr uint32_t kVersion = 1;
constexpr const char* kDeviceKey = "device";
constexpr const char* kChoicePrefix = "choice/";

}  // namespace

std::filesystem::path kernel_choices_path(const std::filesystem::path& adjacency_cache_file) {
  std::filesystem::path path = adjacency_cache_file;
  path += ".choices";
  return path;
}

void store_kernel_choices(const std::filesystem::path& file, uint64_t fingerprint, const std::string& device_model,
                          const ChoiceMap& choices) {
  SectionFile contents;
  contents.kind = kKind;
  contents.kind_version = kVersion;
  contents.fingerprint = fingerprint;
  contents.metadata[kDeviceKey] = device_model;
  for (const auto& [key, variant] : choices) contents.metadata[kChoicePrefix + key] = variant;
  write_section_file(file, contents);
}

std::optional<ChoiceMap> load_kernel_choices(const std::filesystem::path& file, uint64_t fingerprint,
                                             const std::string& device_model, std::string& problem) {
  problem.clear();
  std::error_code error;
  if (!std::filesystem::exists(file, error)) return std::nullopt;
  try {
    const SectionFile contents = read_section_file(file, kKind, kVersion);
    if (contents.fingerprint != fingerprint) {
      throw IoError(file.string(), 0, "fingerprint differs from the adjacency cache's (stale or renamed file)");
    }
    if (contents.meta(kDeviceKey) != device_model) {
      throw IoError(file.string(), 0,
                    detail::concat("timed on a ", contents.meta(kDeviceKey), ", this is a ", device_model));
    }
    ChoiceMap choices;
    for (const auto& [key, variant] : contents.metadata) {
      if (key.starts_with(kChoicePrefix)) choices[key.substr(std::string(kChoicePrefix).size())] = variant;
    }
    return choices;
  } catch (const IoError& failure) {
    problem = failure.what();
    return std::nullopt;
  }
}

}  // namespace sgnn::graph_io
