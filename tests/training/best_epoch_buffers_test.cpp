// The best epoch of a model with buffers (gin's BatchNorm1d running
// statistics): the trainer restores that epoch's buffers with its
// parameters, and a checkpoint's best parameters come back with them.
#include <doctest/doctest.h>

#include <vector>

#include "graph_io/feature_transforms.hpp"
#include "graph_io/graph.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/synthetic_datasets.hpp"
#include "tests/support/testing.hpp"
#include "training/checkpoint.hpp"
#include "training/nn/model_registry.hpp"

using namespace sgnn;
using namespace sgnn::training;

namespace {

using Buffers = std::vector<std::vector<double>>;

Buffers buffers_of(const Module& model) {
  Buffers out;
  for (const auto& [name, buffer] : model.named_buffers()) out.push_back(testing::to_double(buffer));
  return out;
}

}  // namespace

TEST_CASE("a GIN's best epoch comes back with that epoch's batch-norm statistics, after fit and from its checkpoint") {
  testing::TempDir dir;
  const graph_io::Dataset dataset = testing::symmetric_synthetic(200, 1000, 8, 3, 4);
  const ModelEntry& gin = model_entry("gin");
  const graph_io::Graph graph = graph_io::make_graph(dataset, gin.graph, Device::cpu());
  const Tensor features = graph_io::normalize_feature_rows(graph.features, DType::Float32);
  const ModelDescription description =
      describe_model(gin, 8, dataset.num_classes, resolve_hyperparameters(gin, "", {{"hidden", "8"}}),
                     graph_io::FeatureTransform::RowNormalize, Precision::Fp32);
  Generator generator(0);
  const std::shared_ptr<Model> model = make_model(description, generator);
  REQUIRE(model->named_buffers().size() == 6);  // two BatchNorm1d: mean, variance, batches
  Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.05f});
  TrainerOptions options;
  options.epochs = 30;
  Trainer trainer(*model, optimizer,
                  {GraphInput(graph), features, graph.labels, graph.train_index, graph.valid_index, graph.test_index},
                  options);
  std::vector<Buffers> per_epoch;
  const std::filesystem::path path = dir.path() / "gin.ckpt";
  const TrainResult result = trainer.fit([&](const EpochRecord& record) {
    per_epoch.push_back(buffers_of(*model));
    if (record.epoch == 30) save_checkpoint(path, *model, optimizer, trainer.state(), generator);  // as the experiment does
  });
  REQUIRE(per_epoch.size() == 30);
  REQUIRE(result.best_epoch >= 1);
  REQUIRE(result.best_epoch < 30);  // the statistics moved on after it
  const Buffers& best = per_epoch[static_cast<std::size_t>(result.best_epoch - 1)];
  CHECK(best != per_epoch.back());
  CHECK(buffers_of(*model) == best);
  CHECK(trainer.state().best_buffers.size() == 6);

  CHECK(buffers_of(*load_trained_model(path, CheckpointParameters::Best).model) == best);
  CHECK(buffers_of(*load_trained_model(path, CheckpointParameters::Last).model) == per_epoch.back());
}
