#include "training/minibatch_inference.hpp"

#include <algorithm>
#include <memory>
#include <numeric>

#include "core/autograd.hpp"
#include "core/memory.hpp"
#include "sampling/destination_rows.hpp"
#include "sampling/neighbor_sampler.hpp"
#include "sampling/sampler_backend.hpp"

namespace sgnn::training {

namespace {

// Restores the model's train/eval mode on every exit.
class EvalMode {
 public:
  explicit EvalMode(Module& module) : module_(module), was_training_(module.is_training()) { module.eval(); }
  ~EvalMode() { module_.train(was_training_); }
  EvalMode(const EvalMode&) = delete;
  EvalMode& operator=(const EvalMode&) = delete;

 private:
  Module& module_;
  bool was_training_;
};

// One layer's input: a store to gather rows from, and the whole table when
// it is on the model's device (read in place by whole-row chunks).
struct LayerInput {
  const sampling::FeatureStore* store = nullptr;
  Tensor device_table;  // [N, width], or undefined
};

// Layer `layer` on destination rows `ids` (int32 on the device, the rows
// [first, first + count) when `contiguous`).
Tensor run_chunk(BlockModel& model, int64_t layer, const sampling::SamplingGraph& graph, const LayerInput& input,
                 const Tensor& ids, int64_t first, bool contiguous) {
  const sampling::WorkContext context = sampling::WorkContext::on(graph.device());
  if (input.device_table.defined() && contiguous) {
    const int64_t count = ids.numel();
    const Adjacency rows =
        SGNN_DISPATCH(graph.device(), sampling::neighbourhood_rows, graph.view(), first, first + count, context);
    return model.layer_forward(layer, rows, input.device_table, input.device_table.narrow_rows(first, first + count));
  }
  // Arbitrary rows, or a table in host memory: a full-neighbourhood block
  // (its sources relabelled), whose sources are gathered.
  sampling::SamplerOptions every_neighbour;
  every_neighbour.fanouts = {-1};
  const std::shared_ptr<const sampling::SamplingGraph> borrowed(&graph, [](const sampling::SamplingGraph*) {});
  const sampling::NeighborSampler sampler(borrowed, every_neighbour);
  const sampling::Block block = sampler.sample(ids, 0).front();
  const Tensor x_source = input.store->gather(block.source_ids);
  return model.layer_forward(layer, block.adjacency, x_source,
                             sampling::destination_rows(x_source, block.num_destinations()));
}

Tensor iota_ids(int64_t first, int64_t count, Device device) {
  std::vector<int32_t> ids(static_cast<std::size_t>(count));
  std::iota(ids.begin(), ids.end(), static_cast<int32_t>(first));
  return Tensor::from_vector(ids, {count}, device);
}

}  // namespace

Tensor infer_layerwise(BlockModel& model, const sampling::SamplingGraph& graph, const sampling::FeatureStore& features,
                       const Tensor& rows, const InferenceOptions& options) {
  check_dtype(rows, DType::Int32, "infer_layerwise", "rows");
  SGNN_CHECK(rows.device().is_cpu(), "infer_layerwise: rows must be a host tensor");
  SGNN_CHECK(options.chunk_rows >= 1, "infer_layerwise: chunk_rows ", options.chunk_rows);
  const Device device = model.device();
  SGNN_CHECK(graph.device() == device && features.device() == device, "infer_layerwise: the model is on ",
             device.str(), ", the graph on ", graph.device().str(), ", the features on ", features.device().str());
  SGNN_CHECK(features.num_rows() == graph.num_nodes(), "infer_layerwise: ", features.num_rows(),
             " feature rows for a graph of ", graph.num_nodes(), " nodes");
  const autograd::NoGradGuard no_grad;
  const EvalMode eval(model);
  const int64_t n = graph.num_nodes();
  const DType dtype = model.activation_dtype();

  LayerInput input{&features, features.residence() == sampling::Residence::Device ? features.table() : Tensor()};
  std::unique_ptr<sampling::FeatureStore> hidden_store;  // a hidden layer's table
  for (int64_t layer = 0; layer + 1 < model.num_layers(); ++layer) {
    const int64_t width = model.out_width(layer);
    const int64_t bytes = n * width * static_cast<int64_t>(dtype_size(dtype));
    const bool on_device = device.is_cpu() || options.device_budget_bytes < 0 || bytes <= options.device_budget_bytes;
    Tensor table = on_device ? Tensor::empty({n, width}, dtype, device) : Tensor::empty_pinned({n, width}, dtype);
    for (int64_t first = 0; first < n; first += options.chunk_rows) {
      const int64_t count = std::min(options.chunk_rows, n - first);
      const Tensor out = run_chunk(model, layer, graph, input, iota_ids(first, count, device), first, true);
      const std::size_t row_bytes = static_cast<std::size_t>(width) * dtype_size(dtype);
      memory::copy(static_cast<char*>(table.raw_data()) + static_cast<std::size_t>(first) * row_bytes, table.device(),
                   out.raw_data(), device, static_cast<std::size_t>(count) * row_bytes);
    }
    sampling::FeatureStoreOptions placement;
    placement.residence = on_device ? sampling::Residence::Device : sampling::Residence::Host;
    placement.dtype = dtype;
    hidden_store = std::make_unique<sampling::FeatureStore>(table, device, placement);  // no copy: already there
    input = LayerInput{hidden_store.get(), on_device ? table : Tensor()};
  }
  // The last layer for the rows asked for only.
  const int64_t last = model.num_layers() - 1;
  const int64_t count = rows.numel();
  const int64_t classes = model.out_width(last);
  Tensor logits = Tensor::empty({count, classes}, dtype, device);
  const int32_t* wanted = rows.data<int32_t>();
  for (int64_t first = 0; first < count; first += options.chunk_rows) {
    const int64_t chunk = std::min(options.chunk_rows, count - first);
    for (int64_t i = 0; i < chunk; ++i) {
      SGNN_CHECK(wanted[first + i] >= 0 && wanted[first + i] < n, "infer_layerwise: row ", wanted[first + i],
                 " outside [0, ", n, ")");
    }
    const Tensor ids = Tensor::from_vector(std::span<const int32_t>(wanted + first, static_cast<std::size_t>(chunk)),
                                           {chunk}, device);
    const Tensor out = run_chunk(model, last, graph, input, ids, 0, false);
    const std::size_t row_bytes = static_cast<std::size_t>(classes) * dtype_size(dtype);
    memory::copy(static_cast<char*>(logits.raw_data()) + static_cast<std::size_t>(first) * row_bytes, device,
                 out.raw_data(), device, static_cast<std::size_t>(chunk) * row_bytes);
  }
  return logits;
}

}  // namespace sgnn::training
