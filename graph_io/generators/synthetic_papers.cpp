#include "graph_io/generators/synthetic_papers.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>

#include "core/bfloat16.hpp"
#include "core/philox.hpp"
#include "graph_io/fingerprint.hpp"
#include "graph_io/processed_dataset.hpp"

namespace sgnn::graph_io {

namespace {

// Philox stream offsets of the independent draws.
constexpr uint64_t kEdgeStream = 21, kCentroidStream = 22, kNoiseStream = 23, kKeyStream = 24;

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A keyed bijection of [0, n): a balanced Feistel network on 2·half bits,
// cycle-walked back into [0, n).
class Permutation {
 public:
  Permutation(uint64_t n, uint64_t key) : n_(n) {
    int bits = 2;
    while ((uint64_t{1} << bits) < n) bits += 2;
    half_ = bits / 2;
    mask_ = (uint64_t{1} << half_) - 1;
    for (int r = 0; r < kRounds; ++r) keys_[r] = mix(key * kRounds + static_cast<uint64_t>(r));
  }
  uint64_t forward(uint64_t x) const {
    do x = encrypt(x);
    while (x >= n_);
    return x;
  }
  uint64_t inverse(uint64_t y) const {
    do y = decrypt(y);
    while (y >= n_);
    return y;
  }

 private:
  static constexpr int kRounds = 4;
  uint64_t encrypt(uint64_t x) const {
    uint64_t left = x >> half_, right = x & mask_;
    for (int r = 0; r < kRounds; ++r) {
      const uint64_t next = left ^ (mix(right ^ keys_[r]) & mask_);
      left = right;
      right = next;
    }
    return (left << half_) | right;
  }
  uint64_t decrypt(uint64_t y) const {
    uint64_t left = y >> half_, right = y & mask_;
    for (int r = kRounds - 1; r >= 0; --r) {
      const uint64_t previous = right ^ (mix(left ^ keys_[r]) & mask_);
      right = left;
      left = previous;
    }
    return (left << half_) | right;
  }
  uint64_t n_;
  int half_ = 1;
  uint64_t mask_ = 1;
  uint64_t keys_[kRounds]{};
};

// Ranks [0, n) drawn with density ∝ (x + offset)^-alpha, by inverting the CDF.
class RankLaw {
 public:
  RankLaw(int64_t n, double offset, double alpha)
      : n_(n), offset_(offset), power_(1.0 - alpha), low_(std::pow(offset, power_)),
        span_(std::pow(static_cast<double>(n) + offset, power_) - low_) {}
  int64_t draw(double uniform) const {
    const double x = std::pow(low_ + uniform * span_, 1.0 / power_) - offset_;
    return std::clamp<int64_t>(static_cast<int64_t>(x), 0, n_ - 1);
  }
  double first_rank_probability() const { return (std::pow(1.0 + offset_, power_) - low_) / span_; }

 private:
  int64_t n_;
  double offset_, power_, low_, span_;
};

double uniform_of(uint32_t bits) { return (static_cast<double>(bits) + 0.5) * (1.0 / 4294967296.0); }

// The offset at which the heaviest rank expects `max_degree` of `ends` edge ends.
double rank_offset(const PapersScaleOptions& o, double alpha) {
  const double ends = 2.0 * static_cast<double>(o.num_edges);
  double low = 0.0, high = static_cast<double>(o.num_nodes);
  for (int step = 0; step < 200; ++step) {
    const double middle = 0.5 * (low + high);
    if (ends * RankLaw(o.num_nodes, middle, alpha).first_rank_probability() > o.max_degree) {
      low = middle;
    } else {
      high = middle;
    }
  }
  return high;
}

struct EdgeModel {
  const PapersScaleOptions& options;
  Permutation nodes;
  RankLaw everyone;
  std::vector<RankLaw> classes;
  PhiloxStream stream;

  explicit EdgeModel(const PapersScaleOptions& o)
      : options(o), nodes(static_cast<uint64_t>(o.num_nodes), mix(o.seed ^ kKeyStream)),
        everyone(1, 1.0, 0.5), stream{o.seed, kEdgeStream} {
    const double alpha = 1.0 / (o.exponent - 1.0);
    const double offset = rank_offset(o, alpha);
    everyone = RankLaw(o.num_nodes, offset, alpha);
    for (int64_t c = 0; c < o.num_classes; ++c) {
      const int64_t members = (o.num_nodes - c + o.num_classes - 1) / o.num_classes;
      classes.emplace_back(members, (static_cast<double>(c) + offset) / static_cast<double>(o.num_classes), alpha);
    }
  }

  // Edge k's ends as node ids; false for a self loop (dropped).
  bool edge(uint64_t k, int32_t& u, int32_t& v) const {
    const Philox4x32 bits = stream.block_bits(k);
    const int64_t u_rank = everyone.draw(uniform_of(bits.v[0]));
    int64_t v_rank = 0;
    if (uniform_of(bits.v[1]) < options.homophily) {
      const int64_t c = u_rank % options.num_classes;
      v_rank = c + options.num_classes * classes[static_cast<std::size_t>(c)].draw(uniform_of(bits.v[2]));
    } else {
      v_rank = everyone.draw(uniform_of(bits.v[2]));
    }
    if (u_rank == v_rank) return false;
    u = static_cast<int32_t>(nodes.forward(static_cast<uint64_t>(u_rank)));
    v = static_cast<int32_t>(nodes.forward(static_cast<uint64_t>(v_rank)));
    return true;
  }
};

// The symmetric CSR: draw and count, fill through cursors, sort and
// deduplicate rows. The drawn ends are kept between the passes (8 bytes an
// edge) rather than drawn twice: the draws are most of the work.
Csr build_csr(const EdgeModel& model) {
  const int64_t n = model.options.num_nodes;
  const auto m = static_cast<int64_t>(model.options.num_edges);
  constexpr uint64_t kLoop = ~uint64_t{0};
  std::vector<uint64_t> ends(static_cast<std::size_t>(m));
  std::vector<int32_t> degree(static_cast<std::size_t>(n), 0);
#pragma omp parallel for schedule(static, 1 << 16)
  for (int64_t k = 0; k < m; ++k) {
    int32_t u = 0, v = 0;
    if (!model.edge(static_cast<uint64_t>(k), u, v)) {
      ends[static_cast<std::size_t>(k)] = kLoop;
      continue;
    }
    ends[static_cast<std::size_t>(k)] = (static_cast<uint64_t>(static_cast<uint32_t>(u)) << 32) | static_cast<uint32_t>(v);
    std::atomic_ref<int32_t>(degree[static_cast<std::size_t>(u)]).fetch_add(1, std::memory_order_relaxed);
    std::atomic_ref<int32_t>(degree[static_cast<std::size_t>(v)]).fetch_add(1, std::memory_order_relaxed);
  }
  std::vector<int64_t> cursor(static_cast<std::size_t>(n) + 1, 0);
  for (int64_t r = 0; r < n; ++r) cursor[static_cast<std::size_t>(r) + 1] = cursor[static_cast<std::size_t>(r)] + degree[static_cast<std::size_t>(r)];
  const int64_t raw_entries = cursor[static_cast<std::size_t>(n)];
  std::vector<int32_t> raw(static_cast<std::size_t>(raw_entries));
#pragma omp parallel for schedule(static, 1 << 16)
  for (int64_t k = 0; k < m; ++k) {
    const uint64_t pair = ends[static_cast<std::size_t>(k)];
    if (pair == kLoop) continue;
    const auto u = static_cast<int32_t>(pair >> 32), v = static_cast<int32_t>(pair & 0xFFFFFFFFu);
    raw[static_cast<std::size_t>(std::atomic_ref<int64_t>(cursor[static_cast<std::size_t>(u)]).fetch_add(1, std::memory_order_relaxed))] = v;
    raw[static_cast<std::size_t>(std::atomic_ref<int64_t>(cursor[static_cast<std::size_t>(v)]).fetch_add(1, std::memory_order_relaxed))] = u;
  }
  std::vector<uint64_t>().swap(ends);
  // Each cursor now points at its row's end; the row starts at end - degree.
#pragma omp parallel for schedule(dynamic, 4096)
  for (int64_t r = 0; r < n; ++r) {
    const int64_t end = cursor[static_cast<std::size_t>(r)];
    int32_t* first = raw.data() + end - degree[static_cast<std::size_t>(r)];
    std::sort(first, raw.data() + end);
    degree[static_cast<std::size_t>(r)] = static_cast<int32_t>(std::unique(first, raw.data() + end) - first);
  }
  std::vector<int64_t> offsets(static_cast<std::size_t>(n) + 1, 0);
  for (int64_t r = 0; r < n; ++r) offsets[static_cast<std::size_t>(r) + 1] = offsets[static_cast<std::size_t>(r)] + degree[static_cast<std::size_t>(r)];
  const int64_t nnz = offsets[static_cast<std::size_t>(n)];
  Csr csr;
  csr.num_rows = csr.num_cols = n;
  csr.nnz = nnz;
  csr.indices = Tensor::empty({nnz}, DType::Int32);
  int32_t* indices = csr.indices.data<int32_t>();
#pragma omp parallel for schedule(dynamic, 4096)
  for (int64_t r = 0; r < n; ++r) {
    const int64_t row_start = (r == 0 ? 0 : cursor[static_cast<std::size_t>(r) - 1]);
    std::copy(raw.data() + row_start, raw.data() + row_start + degree[static_cast<std::size_t>(r)],
              indices + offsets[static_cast<std::size_t>(r)]);
  }
  if (csr_offset_dtype(nnz) == DType::Int64) {
    csr.indptr = Tensor::from_vector(offsets, {n + 1});
  } else {
    std::vector<int32_t> narrow(offsets.begin(), offsets.end());
    csr.indptr = Tensor::from_vector(narrow, {n + 1});
  }
  return csr;
}

Tensor node_labels(const EdgeModel& model) {
  const int64_t n = model.options.num_nodes;
  Tensor labels = Tensor::empty({n}, DType::Int32);
  int32_t* out = labels.data<int32_t>();
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < n; ++v) {
    out[v] = static_cast<int32_t>(model.nodes.inverse(static_cast<uint64_t>(v)) % static_cast<uint64_t>(model.options.num_classes));
  }
  return labels;
}

Tensor planted_bf16_features(const PapersScaleOptions& o, const Tensor& labels) {
  const int64_t f = o.num_features;
  const PhiloxStream centroid_stream{o.seed, kCentroidStream};
  const float scale = static_cast<float>(std::sqrt(6.0 / static_cast<double>(f)));
  std::vector<float> centroids(static_cast<std::size_t>(o.num_classes * f));
  for (std::size_t i = 0; i < centroids.size(); ++i) centroids[i] = (2.0f * centroid_stream.uniform(i) - 1.0f) * scale;
  Tensor features = Tensor::empty({o.num_nodes, f}, DType::BFloat16);
  bfloat16* x = features.data<bfloat16>();
  const int32_t* label = labels.data<int32_t>();
  const PhiloxStream noise_stream{o.seed, kNoiseStream};
  const float unit = static_cast<float>(std::sqrt(3.0)) / 65536.0f;  // Irwin–Hall of 4: variance 1/3 before scaling
#pragma omp parallel for schedule(static, 1024)
  for (int64_t v = 0; v < o.num_nodes; ++v) {
    const float* centroid = centroids.data() + static_cast<int64_t>(label[v]) * f;
    for (int64_t j = 0; j < f; j += 2) {
      // One Philox call: eight 16-bit uniforms, four per value.
      const Philox4x32 bits = noise_stream.block_bits(static_cast<uint64_t>((v * f + j) / 2));
      for (int64_t half = 0; half < 2 && j + half < f; ++half) {
        const uint32_t a = bits.v[2 * half], b = bits.v[2 * half + 1];
        const auto sum = static_cast<float>((a & 0xFFFFu) + (a >> 16) + (b & 0xFFFFu) + (b >> 16));
        x[v * f + j + half] = bfloat16(centroid[j + half] + (sum - 2.0f * 65536.0f) * unit);
      }
    }
  }
  return features;
}

void random_splits(const PapersScaleOptions& o, Dataset& d) {
  const Permutation order(static_cast<uint64_t>(o.num_nodes), mix(o.seed ^ (kKeyStream + 1)));
  const int64_t bounds[] = {o.train_nodes, o.train_nodes + o.valid_nodes, o.train_nodes + o.valid_nodes + o.test_nodes};
  std::vector<int8_t> split(static_cast<std::size_t>(o.num_nodes));
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < o.num_nodes; ++v) {
    const auto position = static_cast<int64_t>(order.forward(static_cast<uint64_t>(v)));
    split[static_cast<std::size_t>(v)] = position < bounds[0] ? 0 : position < bounds[1] ? 1 : position < bounds[2] ? 2 : 3;
  }
  std::vector<int32_t> lists[3];
  for (int64_t v = 0; v < o.num_nodes; ++v) {
    const int8_t s = split[static_cast<std::size_t>(v)];
    if (s < 3) lists[s].push_back(static_cast<int32_t>(v));
  }
  Tensor* targets[] = {&d.train_index, &d.valid_index, &d.test_index};
  for (int s = 0; s < 3; ++s) *targets[s] = Tensor::from_vector(lists[s], {static_cast<int64_t>(lists[s].size())});
}

uint64_t options_fingerprint(const PapersScaleOptions& o) {
  uint64_t state = hash_combine(0x5041'5045'5253'0001ull, static_cast<uint64_t>(o.num_nodes));
  for (const int64_t value : {o.num_edges, o.num_features, o.num_classes, o.train_nodes, o.valid_nodes, o.test_nodes}) {
    state = hash_combine(state, static_cast<uint64_t>(value));
  }
  for (const double value : {o.exponent, o.max_degree, o.homophily}) {
    state = hash_combine(state, static_cast<uint64_t>(std::llround(value * 1e6)));
  }
  return hash_combine(state, o.seed);
}

}  // namespace

PapersScaleOptions scaled_papers_options(double scale) {
  SGNN_CHECK(scale >= 1.0, "scaled_papers_options: scale ", scale, " below 1");
  PapersScaleOptions o;
  const auto divide = [scale](int64_t value) { return std::max<int64_t>(1, std::llround(static_cast<double>(value) / scale)); };
  o.num_nodes = divide(o.num_nodes);
  o.num_edges = divide(o.num_edges);
  o.train_nodes = divide(o.train_nodes);
  o.valid_nodes = divide(o.valid_nodes);
  o.test_nodes = divide(o.test_nodes);
  // The heaviest degree of a power law grows as n^(1 / (exponent - 1)).
  o.max_degree = std::max(o.max_degree / std::pow(scale, 1.0 / (o.exponent - 1.0)),
                          2.0 * static_cast<double>(o.num_edges) / static_cast<double>(o.num_nodes));
  return o;
}

void check_papers_options(const PapersScaleOptions& o) {
  SGNN_CHECK(o.num_nodes >= 2 && o.num_nodes < (int64_t{1} << 31), "papers-scale: num_nodes ", o.num_nodes,
             " outside [2, 2^31)");
  SGNN_CHECK(o.num_edges >= 0 && o.num_features >= 1 && o.num_classes >= 2 && o.num_classes <= o.num_nodes,
             "papers-scale: num_edges ", o.num_edges, ", num_features ", o.num_features, " and num_classes ",
             o.num_classes, " out of range");
  SGNN_CHECK(o.train_nodes >= 1 && o.valid_nodes >= 0 && o.test_nodes >= 0 &&
                 o.train_nodes + o.valid_nodes + o.test_nodes <= o.num_nodes,
             "papers-scale: splits of ", o.train_nodes, ", ", o.valid_nodes, " and ", o.test_nodes, " nodes for ",
             o.num_nodes, " nodes");
  SGNN_CHECK(o.exponent > 2.0 && o.homophily >= 0.0 && o.homophily <= 1.0 && o.max_degree >= 1.0,
             "papers-scale: exponent ", o.exponent, " (> 2), homophily ", o.homophily, " ([0, 1]), max_degree ",
             o.max_degree, " (>= 1)");
  SGNN_CHECK(2 * o.num_edges < (int64_t{1} << 62), "papers-scale: too many edges");
}

Dataset generate_papers_scale(const PapersScaleOptions& options) {
  check_papers_options(options);
  const EdgeModel model(options);
  Dataset d;
  d.name = "papers100m-scale";
  d.source = "generated";
  d.edges.num_nodes = options.num_nodes;
  d.csr = build_csr(model);
  d.labels = node_labels(model);
  d.num_classes = options.num_classes;
  d.features = planted_bf16_features(options, d.labels);
  random_splits(options, d);
  d.fingerprint = options_fingerprint(options);
  return d;
}

Dataset write_papers_scale(const PapersScaleOptions& options, const std::filesystem::path& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) throw IoError(folder.string(), 0, "cannot create the dataset folder: " + error.message());
  Dataset dataset = generate_papers_scale(options);
  const std::filesystem::path file = processed_path_beside(folder);
  store_processed_dataset(file, dataset, {}, dataset.fingerprint, stamp_time_now());
  dataset.load.processed_path = file.string();
  return dataset;
}

}  // namespace sgnn::graph_io
