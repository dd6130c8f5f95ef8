#include "distributed/distributed_gcn.hpp"

#include "core/autograd.hpp"
#include "ops/cast.hpp"
#include "ops/classification.hpp"
#include "ops/elementwise.hpp"
#include "ops/loss.hpp"
#include "ops/reduce.hpp"
#include "ops/spmm.hpp"
#include "training/nn/gat_conv.hpp"
#include "training/nn/gcn_conv.hpp"
#include "training/nn/linear.hpp"
#include "training/metrics.hpp"

namespace sgnn::distributed {

namespace {

// GCNConv::forward with the aggregation spread over the ranks.
Tensor gcn_conv_forward(training::GCNConv& conv, const RankData& data, const HaloExchange& halo,
                        Communicator& communicator, const Tensor& x) {
  return conv.forward_with(
      [&](const Tensor& rows) { return ops::spmm(data.adjacency, halo(communicator, rows)); }, x);
}

// This rank's share of the global mean loss over all training rows.
Tensor rank_loss(const Tensor& logits, const RankData& data) {
  const int64_t local_rows = data.train_index.numel();
  if (local_rows == 0) {
    // No training rows here, but backward must still run: the halo
    // exchanges in it are collective.
    return ops::scale(ops::sum(logits), 0.0f);
  }
  const double share = static_cast<double>(local_rows) / static_cast<double>(data.global_train_rows);
  return ops::scale(ops::cross_entropy(logits, data.labels, data.train_index), static_cast<float>(share));
}

}  // namespace

void check_row_partition_layers(const training::Model& model) {
  const training::Sequential& layers = model.layers();
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const training::Layer* layer = layers[i].get();
    const bool supported = dynamic_cast<const training::GCNConv*>(layer) != nullptr ||
                           dynamic_cast<const training::GATConv*>(layer) != nullptr ||
                           dynamic_cast<const training::Dropout*>(layer) != nullptr ||
                           dynamic_cast<const training::Relu*>(layer) != nullptr ||
                           dynamic_cast<const training::Elu*>(layer) != nullptr ||
                           dynamic_cast<const training::Linear*>(layer) != nullptr;
    SGNN_CHECK(supported, "row partitions cannot run layer ", i, " of the ", model.kind(),
               " model: training across ranks knows GCNConv, GATConv and row-wise layers (Dropout, ReLU, ELU, "
               "Linear), the models gcn and gat");
  }
}

Tensor distributed_forward(training::Model& model, const RankData& data, const HaloExchange& halo,
                           Communicator& communicator, const Tensor& x) {
  const training::GraphInput graph(data.adjacency);
  const training::Sequential& layers = model.layers();
  check_floating(x, "distributed_forward", "x");
  Tensor h = ops::cast(x, model.activation_dtype());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    training::Layer& layer = *layers[i];
    if (auto* gcn = dynamic_cast<training::GCNConv*>(&layer)) {
      h = gcn_conv_forward(*gcn, data, halo, communicator, h);
    } else if (auto* gat = dynamic_cast<training::GATConv*>(&layer)) {
      h = gat->forward_block(data.adjacency, h, [&](const Tensor& rows) { return halo(communicator, rows); });
    } else {
      h = layer.forward(graph, h);  // dropout, activations: row-wise, no graph
    }
  }
  return h;
}

DistributedTrainer::DistributedTrainer(training::Model& model, training::Optimizer& optimizer, const RankData& data,
                                       const HaloExchange& halo, Communicator& communicator)
    : model_(model), optimizer_(optimizer), data_(data), halo_(halo), communicator_(communicator) {
  SGNN_CHECK(model.device() == communicator.device() && data.features.device() == communicator.device(),
             "DistributedTrainer: model on ", model.device().str(), ", data on ", data.features.device().str(),
             ", rank ", communicator.rank(), " on ", communicator.device().str());
  SGNN_CHECK(halo.num_rows() == data.features.size(0), "DistributedTrainer: the halo plan covers ", halo.num_rows(),
             " rows, the data ", data.features.size(0));
}

double DistributedTrainer::train_step() {
  model_.train();
  optimizer_.zero_grad();
  const Tensor logits = distributed_forward(model_, data_, halo_, communicator_, data_.features);
  const Tensor loss = rank_loss(logits, data_);
  loss.backward();
  // Sum the gradients (and the loss shares) over ranks in one collective group.
  std::vector<Tensor> summed;
  for (Tensor& parameter : model_.parameters()) {
    if (!parameter.grad().defined()) parameter.set_grad(Tensor::zeros_like(parameter));
    summed.push_back(parameter.grad());
  }
  const Tensor global_loss = loss.detach().clone();
  summed.push_back(global_loss);
  communicator_.all_reduce_sum(summed);
  optimizer_.step();
  return global_loss.item();
}

training::Evaluation DistributedTrainer::evaluate() {
  const bool was_training = model_.is_training();
  model_.eval();
  autograd::NoGradGuard no_grad;
  const Tensor logits = distributed_forward(model_, data_, halo_, communicator_, data_.features);
  const int64_t classes = logits.size(1);
  const std::vector<const Tensor*> splits{&data_.train_index, &data_.valid_index, &data_.test_index};
  // Per split: the confusion matrix counts and the summed loss, then one all-reduce.
  const int64_t per_split = classes * classes + 1;
  std::vector<float> totals(splits.size() * static_cast<std::size_t>(per_split), 0.0f);
  for (std::size_t s = 0; s < splits.size(); ++s) {
    const Tensor& index = *splits[s];
    if (!index.defined() || index.numel() == 0) continue;
    const std::vector<int64_t> counts = ops::confusion_matrix(logits, data_.labels, index, classes).to_vector<int64_t>();
    float* out = totals.data() + s * static_cast<std::size_t>(per_split);
    for (std::size_t k = 0; k < counts.size(); ++k) out[k] = static_cast<float>(counts[k]);
    out[classes * classes] = static_cast<float>(ops::cross_entropy(logits, data_.labels, index).item() *
                                                static_cast<double>(index.numel()));
  }
  const Tensor reduced = Tensor::from_vector(totals, {static_cast<int64_t>(totals.size())}).to(communicator_.device());
  communicator_.all_reduce_sum({reduced});
  const std::vector<float> global = reduced.to_vector<float>();

  std::vector<training::SplitMetrics> metrics(splits.size());
  for (std::size_t s = 0; s < splits.size(); ++s) {
    const float* in = global.data() + s * static_cast<std::size_t>(per_split);
    std::vector<int64_t> counts(static_cast<std::size_t>(classes * classes));
    int64_t rows = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) rows += counts[k] = static_cast<int64_t>(in[k]);
    const Tensor confusion = Tensor::from_vector(counts, {classes, classes});
    metrics[s].accuracy = training::accuracy(confusion);
    metrics[s].macro_f1 = training::macro_f1(confusion);
    metrics[s].loss = rows > 0 ? static_cast<double>(in[classes * classes]) / static_cast<double>(rows) : 0.0;
  }
  model_.train(was_training);
  return {metrics[0], metrics[1], metrics[2]};
}

}  // namespace sgnn::distributed
