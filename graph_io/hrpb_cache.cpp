#include "graph_io/hrpb_cache.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string_view>

#include "core/memory.hpp"

#include "graph_io/fingerprint.hpp"
#include "graph_io/section_file.hpp"

namespace sgnn::graph_io {

namespace {

constexpr std::string_view kKind = "hrpb-cache";
constexpr uint32_t kKindVersion = 2;  // 2: max_block_words
// Metadata of a file holding one layout for both directions (a symmetric
// matrix): no "transpose" sections. Older files hold both; they still load.
constexpr const char* kTransposeKey = "transpose";
constexpr const char* kTransposeIsForward = "forward";

// Scalars of one Hrpb as metadata "<prefix>.<name>" = decimal text.
struct ScalarField {
  const char* name;
  int64_t Hrpb::*integer;
};
constexpr ScalarField kHrpbIntegers[] = {{"num_rows", &Hrpb::num_rows},     {"num_cols", &Hrpb::num_cols},
                                         {"nnz", &Hrpb::nnz},               {"num_panels", &Hrpb::num_panels},
                                         {"num_blocks", &Hrpb::num_blocks},
                                         {"max_block_words", &Hrpb::max_block_words}};
struct StatisticsField {
  const char* name;
  int64_t HrpbStatistics::*integer;
};
constexpr StatisticsField kStatisticsIntegers[] = {
    {"nnz", &HrpbStatistics::nnz},
    {"num_panels", &HrpbStatistics::num_panels},
    {"empty_panels", &HrpbStatistics::empty_panels},
    {"active_columns", &HrpbStatistics::active_columns},
    {"num_blocks", &HrpbStatistics::num_blocks},
    {"num_bricks", &HrpbStatistics::num_bricks},
    {"hrpb_bytes", &HrpbStatistics::hrpb_bytes},
    {"csr_bytes", &HrpbStatistics::csr_bytes}};
struct ScheduleField {
  const char* name;
  int64_t HrpbSchedule::*integer;
};
constexpr ScheduleField kScheduleIntegers[] = {{"num_virtual_panels", &HrpbSchedule::num_virtual_panels},
                                               {"num_split_panels", &HrpbSchedule::num_split_panels},
                                               {"num_slots", &HrpbSchedule::num_slots},
                                               {"concurrent_blocks", &HrpbSchedule::concurrent_blocks}};
struct TensorField {
  const char* name;
  Tensor Hrpb::*tensor;
};
constexpr TensorField kHrpbTensors[] = {{"blocked_row_ptr", &Hrpb::blocked_row_ptr},
                                        {"active_cols", &Hrpb::active_cols},
                                        {"size_ptr", &Hrpb::size_ptr},
                                        {"packed_blocks", &Hrpb::packed_blocks}};
struct ScheduleTensorField {
  const char* name;
  Tensor HrpbSchedule::*tensor;
};
constexpr ScheduleTensorField kScheduleTensors[] = {{"virtual_panel", &HrpbSchedule::virtual_panel},
                                                    {"virtual_block_ptr", &HrpbSchedule::virtual_block_ptr},
                                                    {"virtual_slot", &HrpbSchedule::virtual_slot},
                                                    {"split_panel", &HrpbSchedule::split_panel},
                                                    {"split_slot_ptr", &HrpbSchedule::split_slot_ptr}};

std::string key(const std::string& prefix, const char* name) { return prefix + "." + name; }

void add_hrpb(SectionFile& file, const std::string& prefix, const Hrpb& hrpb) {
  for (const ScalarField& f : kHrpbIntegers) file.metadata[key(prefix, f.name)] = std::to_string(hrpb.*f.integer);
  for (const StatisticsField& f : kStatisticsIntegers) {
    file.metadata[key(prefix, "statistics") + "." + f.name] = std::to_string(hrpb.statistics.*f.integer);
  }
  for (const ScheduleField& f : kScheduleIntegers) {
    file.metadata[key(prefix, "schedule") + "." + f.name] = std::to_string(hrpb.schedule.*f.integer);
  }
  // Doubles as exact hexadecimal floating-point text.
  char text[64];
  std::snprintf(text, sizeof text, "%a", hrpb.schedule.waves_unsplit);
  file.metadata[key(prefix, "schedule.waves_unsplit")] = text;
  std::snprintf(text, sizeof text, "%a", hrpb.schedule.waves_planned);
  file.metadata[key(prefix, "schedule.waves_planned")] = text;
  file.metadata[key(prefix, "deterministic")] = hrpb.deterministic ? "1" : "0";
  for (const TensorField& f : kHrpbTensors) {
    if ((hrpb.*f.tensor).defined()) file.add(key(prefix, f.name), hrpb.*f.tensor);
  }
  for (const ScheduleTensorField& f : kScheduleTensors) {
    if ((hrpb.schedule.*f.tensor).defined()) file.add(key(prefix, "schedule") + "." + f.name, hrpb.schedule.*f.tensor);
  }
}

int64_t parse_integer(const SectionFile& file, const std::string& name) {
  const std::string& text = file.meta(name);
  std::size_t used = 0;
  const long long value = std::stoll(text, &used);
  if (used != text.size()) throw IoError(file.source, 0, "metadata " + name + " is not an integer: " + text);
  return value;
}

double parse_double(const SectionFile& file, const std::string& name) {
  const std::string& text = file.meta(name);
  std::size_t used = 0;
  const double value = std::stod(text, &used);
  if (used != text.size()) throw IoError(file.source, 0, "metadata " + name + " is not a number: " + text);
  return value;
}

Hrpb read_hrpb(const SectionFile& file, const std::string& prefix) {
  Hrpb hrpb;
  for (const ScalarField& f : kHrpbIntegers) hrpb.*f.integer = parse_integer(file, key(prefix, f.name));
  for (const StatisticsField& f : kStatisticsIntegers) {
    hrpb.statistics.*f.integer = parse_integer(file, key(prefix, "statistics") + "." + f.name);
  }
  for (const ScheduleField& f : kScheduleIntegers) {
    hrpb.schedule.*f.integer = parse_integer(file, key(prefix, "schedule") + "." + f.name);
  }
  hrpb.schedule.waves_unsplit = parse_double(file, key(prefix, "schedule.waves_unsplit"));
  hrpb.schedule.waves_planned = parse_double(file, key(prefix, "schedule.waves_planned"));
  hrpb.deterministic = parse_integer(file, key(prefix, "deterministic")) != 0;
  for (const TensorField& f : kHrpbTensors) {
    if (file.has(key(prefix, f.name))) hrpb.*f.tensor = file.at(key(prefix, f.name));
  }
  for (const ScheduleTensorField& f : kScheduleTensors) {
    const std::string name = key(prefix, "schedule") + "." + f.name;
    if (file.has(name)) hrpb.schedule.*f.tensor = file.at(name);
  }
  return hrpb;
}

}  // namespace

uint64_t hrpb_cache_fingerprint(const std::filesystem::path& adjacency_cache_file, const HrpbOptions& options) {
  const std::string key = detail::concat(adjacency_cache_file.filename().string(), "|load_balance=",
                                         options.load_balance, "|deterministic=", options.deterministic,
                                         "|concurrent_blocks=", options.concurrent_blocks);
  return hash_bytes(key.data(), key.size());
}

void store_hrpb_cache(const std::filesystem::path& file, uint64_t fingerprint, const HrpbAdjacency& hrpb,
                      double build_ms) {
  SectionFile contents;
  contents.kind = std::string(kKind);
  contents.kind_version = kKindVersion;
  contents.fingerprint = fingerprint;
  contents.metadata["build_ms"] = std::to_string(build_ms);
  add_hrpb(contents, "forward", hrpb.forward);
  // A symmetric matrix's one layout (both directions sharing it) is stored
  // once, and loaded as one again: not twice the bytes on disk and on the device.
  if (hrpb.transpose.packed_blocks.shares_storage_with(hrpb.forward.packed_blocks)) {
    contents.metadata[kTransposeKey] = kTransposeIsForward;
  } else {
    add_hrpb(contents, "transpose", hrpb.transpose);
  }
  write_section_file(file, contents);
}

std::optional<HrpbAdjacency> load_hrpb_cache(const std::filesystem::path& file, uint64_t fingerprint,
                                             std::string& why) {
  if (!std::filesystem::exists(file)) {
    why = "no HRPB cache file yet";
    return std::nullopt;
  }
  try {
    const SectionFile contents = read_section_file(file, kKind, kKindVersion);
    if (contents.fingerprint != fingerprint) {
      why = "the HRPB cache was made for other inputs or options";
      return std::nullopt;
    }
    const auto transpose = contents.metadata.find(kTransposeKey);
    const bool shared = transpose != contents.metadata.end();
    if (shared && transpose->second != kTransposeIsForward) {
      why = detail::concat("the HRPB cache's metadata ", kTransposeKey, " is '", transpose->second, "', not '",
                           kTransposeIsForward, "'");
      return std::nullopt;
    }
    const Hrpb forward = read_hrpb(contents, "forward");
    HrpbAdjacency loaded{forward, shared ? forward : read_hrpb(contents, "transpose")};
    // Right checksums do not make a layout the kernels can trust (a shared one is checked once).
    const auto consistent = [&why](const char* name, const Hrpb& layout) {
      const std::string problem = hrpb_structure_problem(layout);
      if (!problem.empty()) why = detail::concat("the HRPB cache's ", name, " layout is inconsistent: ", problem);
      return problem.empty();
    };
    if (!consistent("forward", loaded.forward) || (!shared && !consistent("transpose", loaded.transpose))) {
      return std::nullopt;
    }
    if (loaded.forward.num_rows != loaded.transpose.num_cols || loaded.forward.num_cols != loaded.transpose.num_rows ||
        loaded.forward.nnz != loaded.transpose.nnz) {
      why = "the HRPB cache's forward and transpose layouts are not of one matrix";
      return std::nullopt;
    }
    return loaded;
  } catch (const std::exception& error) {  // IoError, or std::stoll/stod on damaged metadata
    why = error.what();
    return std::nullopt;
  }
}

namespace {

std::filesystem::path hrpb_cache_file(const std::filesystem::path& adjacency_cache_file) {
  std::filesystem::path file = adjacency_cache_file;
  file += ".hrpb";
  return file;
}

// The build time a cache file records (0 when it records none).
double recorded_build_ms(const std::filesystem::path& file) {
  try {
    const SectionFile header = map_section_file(file, kKind, kKindVersion);  // the header only is read
    const auto found = header.metadata.find("build_ms");
    return found == header.metadata.end() ? 0.0 : std::stod(found->second);
  } catch (const std::exception&) {
    return 0.0;
  }
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

HrpbAttachment attach_hrpb_cached(Adjacency& adjacency, SpmmFormat format, const HrpbOptions& options,
                                  const std::filesystem::path& adjacency_cache_file, HrpbCachePolicy policy) {
  SGNN_CHECK(options.concurrent_blocks > 0, "attach_hrpb_cached: options.concurrent_blocks must be resolved");
  HrpbAttachment attachment;
  if (adjacency_cache_file.empty() || format == SpmmFormat::Csr || adjacency.hrpb) {
    attachment.built = format != SpmmFormat::Csr && !adjacency.hrpb;
    attachment.milliseconds = attachment.build_ms = attach_hrpb(adjacency, format, options);
    return attachment;
  }
  const auto start = std::chrono::steady_clock::now();
  const std::filesystem::path file = hrpb_cache_file(adjacency_cache_file);
  const uint64_t fingerprint = hrpb_cache_fingerprint(adjacency_cache_file, options);
  std::string why;
  std::optional<HrpbAdjacency> cached = load_hrpb_cache(file, fingerprint, why);
  if (cached && (cached->forward.num_rows != adjacency.num_rows() || cached->forward.num_cols != adjacency.num_cols() ||
                 cached->forward.nnz != adjacency.nnz())) {
    why = detail::concat("the HRPB cache holds a ", cached->forward.num_rows, " x ", cached->forward.num_cols,
                         " matrix with ", cached->forward.nnz, " non-zeros, the adjacency is ", adjacency.num_rows(),
                         " x ", adjacency.num_cols(), " with ", adjacency.nnz());
    cached.reset();
  }
  if (cached) {
    adjacency.hrpb = std::make_shared<const HrpbAdjacency>(cached->to(adjacency.device()));
    adjacency.spmm_format = format;
    attachment.cache_hit = true;
    memory::synchronize(adjacency.device());
    const double load_ms = milliseconds_since(start);
    const double build_ms = recorded_build_ms(file);
    if (build_ms > 0 && load_ms > build_ms) {  // the cache costs more than it saves: next time, build
      std::error_code ignored;
      std::filesystem::remove(file, ignored);
      attachment.note = detail::concat("removed the HRPB cache ", file.string(), ": loading it took ",
                                       static_cast<int64_t>(load_ms), " ms, building the layout takes ",
                                       static_cast<int64_t>(build_ms), " ms");
    }
  } else {
    if (std::filesystem::exists(file)) std::cerr << "sparsegnn: rebuilding the HRPB cache " << file << ": " << why << "\n";
    attachment.build_ms = attach_hrpb(adjacency, format, options);
    attachment.built = true;
    if (policy.store_on_miss) {
      try {
        store_hrpb_cache(file, fingerprint, *adjacency.hrpb, attachment.build_ms);
      } catch (const IoError& error) {
        std::cerr << "sparsegnn: could not store the HRPB cache: " << error.what() << "\n";
      }
    }
  }
  memory::synchronize(adjacency.device());
  attachment.milliseconds = milliseconds_since(start);
  return attachment;
}

bool store_hrpb_cache_if_faster(const Adjacency& adjacency, const HrpbOptions& options,
                                const std::filesystem::path& adjacency_cache_file, double build_ms,
                                double read_bytes_per_ms, std::string& note) {
  note.clear();
  if (adjacency_cache_file.empty() || !adjacency.hrpb) return false;
  const auto bytes = static_cast<double>(adjacency.hrpb->forward.statistics.hrpb_bytes +
                                         adjacency.hrpb->transpose.statistics.hrpb_bytes);
  if (read_bytes_per_ms <= 0) {
    note = "HRPB cache not written yet: no read rate measured in this run (the next run with the adjacency cache decides)";
    return false;
  }
  const double read_ms = bytes / read_bytes_per_ms;
  if (read_ms >= build_ms) {
    // Tenths of a MiB: a small graph's layout would otherwise print as "0 MiB".
    note = detail::concat("HRPB cache not written: reading its ", std::round(bytes / (1 << 20) * 10) / 10,
                          " MiB at this run's adjacency-cache read rate would take about ",
                          static_cast<int64_t>(read_ms), " ms, building the layout takes ",
                          static_cast<int64_t>(build_ms), " ms");
    return false;
  }
  try {
    store_hrpb_cache(hrpb_cache_file(adjacency_cache_file), hrpb_cache_fingerprint(adjacency_cache_file, options),
                     *adjacency.hrpb, build_ms);
  } catch (const IoError& error) {
    note = detail::concat("could not store the HRPB cache: ", error.what());
    return false;
  }
  return true;
}

}  // namespace sgnn::graph_io
