// run_prediction (what sgnn_predict runs) against the outputs of training:
// the same bits from the final checkpoint, the reported test accuracy, the
// inductive case on Cora, and every refusal leaving no output file.
#include <doctest/doctest.h>

#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include "core/autograd.hpp"
#include "graph_io/feature_transforms.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/ogb_writer.hpp"
#include "graph_io/section_file.hpp"
#include "ops/softmax.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/synthetic_datasets.hpp"
#include "tests/training/planetoid_fixture.hpp"
#include "training/experiment.hpp"
#include "training/nn/builtin_models.hpp"
#include "training/prediction_run.hpp"

using namespace sgnn;
using namespace sgnn::training;
using sgnn::testing::TempDir;
namespace fs = std::filesystem;

namespace {

struct CsvPredictions {
  std::vector<int64_t> ids;
  std::vector<int32_t> classes;
  std::vector<std::vector<float>> probabilities;
};

CsvPredictions read_predictions_csv(const fs::path& file) {
  std::istringstream in(sgnn::testing::read_bytes(file));
  std::string line;
  std::getline(in, line);  // header
  CsvPredictions out;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string field;
    std::getline(fields, field, ',');
    out.ids.push_back(std::stoll(field));
    std::getline(fields, field, ',');
    out.classes.push_back(std::stoi(field));
    std::vector<float> row;
    while (std::getline(fields, field, ',')) {
      float value = 0;
      std::from_chars(field.data(), field.data() + field.size(), value);
      row.push_back(value);
    }
    out.probabilities.push_back(row);
  }
  return out;
}

// Accuracy of the file's classes on `dataset`'s test split, counted here.
double file_test_accuracy(const CsvPredictions& predictions, const graph_io::Dataset& dataset) {
  const auto labels = dataset.labels.to_vector<int32_t>();
  std::vector<int32_t> class_of(labels.size(), -1);
  for (std::size_t k = 0; k < predictions.ids.size(); ++k) {
    class_of[static_cast<std::size_t>(predictions.ids[k])] = predictions.classes[k];
  }
  int64_t correct = 0;
  const auto test = dataset.test_index.to_vector<int32_t>();
  for (const int32_t node : test) {
    correct += class_of[static_cast<std::size_t>(node)] == labels[static_cast<std::size_t>(node)];
  }
  return static_cast<double>(correct) / static_cast<double>(test.size());
}

ExperimentOptions short_training(const std::string& model, const std::string& dataset, const fs::path& dir) {
  ExperimentOptions options;
  options.model = model;
  options.dataset = dataset;
  options.hyperparameters = {{"epochs", "8"}, {"patience", "0"}};
  if (model == "gat") {
    options.hyperparameters["hidden"] = "4";
    options.hyperparameters["heads"] = "2";
  }
  options.checkpoint = (dir / "model.ckpt").string();
  options.predictions = (dir / "trained.csv").string();
  if (model != "sgc") options.embeddings = (dir / "trained-embeddings.npy").string();  // SGC: no hidden layer
  return options;
}

}  // namespace

TEST_CASE("predictions from the final checkpoint equal the trained model's, bit for bit, with its test accuracy") {
  TempDir dir;
  const std::string sbm = sgnn::testing::write_symmetric_synthetic(dir.path(), "sbm", 300, 1500, 16, 5);
  // Kinds that read edge features (gine) predict with the dataset's, as they trained.
  const std::string with_edge_features = sgnn::testing::write_edge_feature_synthetic(dir.path(), "edges", 300, 5);
  for (const ModelEntry& builtin : builtin_models()) {
    const std::string& kind = builtin.name;
    CAPTURE(kind);
    const std::string& dataset = builtin.graph.edge_features ? with_edge_features : sbm;
    const ExperimentOptions training = short_training(kind, dataset, dir.path());
    const ExperimentResult trained = run_experiment(training);
    CHECK(trained.predictions == (dir / "trained.csv").string());
    PredictionOptions options;
    options.checkpoint = (dir / "model.ckpt").string();
    options.dataset = dataset;
    options.predictions = (dir / "predicted.csv").string();
    if (!training.embeddings.empty()) options.embeddings = (dir / "predicted-embeddings.npy").string();
    const PredictionReport report = run_prediction(options);
    CHECK(report.description.kind == kind);
    CHECK(report.parameters_epoch == trained.runs.front().result.best_epoch);
    CHECK(report.written == 300);
    CHECK(sgnn::testing::read_bytes(dir / "predicted.csv") == sgnn::testing::read_bytes(dir / "trained.csv"));
    if (!training.embeddings.empty()) {
      CHECK(sgnn::testing::read_bytes(dir / "predicted-embeddings.npy") ==
            sgnn::testing::read_bytes(dir / "trained-embeddings.npy"));
    }
    const CsvPredictions predictions = read_predictions_csv(dir / "predicted.csv");
    CHECK(file_test_accuracy(predictions, graph_io::load_dataset(dataset)) == trained.test_accuracy);
    REQUIRE(report.test_accuracy.has_value());
    CHECK(*report.test_accuracy == trained.test_accuracy);
  }
}

TEST_CASE("run_prediction writes the listed nodes in the listed order") {
  TempDir dir;
  const std::string dataset = sgnn::testing::write_symmetric_synthetic(dir.path(), "sbm", 300, 1500, 16, 5);
  run_experiment(short_training("gcn", dataset, dir.path()));
  sgnn::testing::write_text(dir / "nodes.txt", "# wanted\n17\n3\n\n299\n");
  PredictionOptions options;
  options.checkpoint = (dir / "model.ckpt").string();
  options.dataset = dataset;
  options.nodes = (dir / "nodes.txt").string();
  options.predictions = (dir / "some.csv").string();
  CHECK(run_prediction(options).written == 3);
  const CsvPredictions some = read_predictions_csv(dir / "some.csv");
  const CsvPredictions all = read_predictions_csv(dir / "trained.csv");
  CHECK(some.ids == std::vector<int64_t>{17, 3, 299});
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(some.probabilities[k] == all.probabilities[static_cast<std::size_t>(some.ids[k])]);
  }
}

TEST_CASE("run_prediction refuses each mismatch with its reason and leaves no output file") {
  TempDir dir;
  const std::string dataset = sgnn::testing::write_symmetric_synthetic(dir.path(), "sbm", 300, 1500, 16, 5);
  ExperimentOptions training = short_training("gcn", dataset, dir.path());
  training.predictions.clear();
  training.embeddings.clear();
  run_experiment(training);
  const fs::path checkpoint = dir / "model.ckpt";
  const graph_io::SectionFile contents =
      graph_io::read_section_file(checkpoint, "checkpoint", kOldestCheckpointVersion, kCheckpointVersion);

  const std::string wider = sgnn::testing::write_symmetric_synthetic(dir.path(), "wider", 300, 1500, 20, 6);
  graph_io::write_ogb_dataset(sgnn::testing::symmetric_synthetic(300, 1500, 16, 7, 6), dir / "six-classes");
  graph_io::SectionFile old = contents;
  old.kind_version = 1;
  old.metadata = {{"model", "gcn"}};
  graph_io::write_section_file(dir / "v1.ckpt", old);
  graph_io::SectionFile unknown = contents;
  unknown.metadata["model"] = "resnet";
  graph_io::write_section_file(dir / "resnet.ckpt", unknown);
  std::string damaged = sgnn::testing::read_bytes(checkpoint);
  damaged[damaged.size() / 2] = static_cast<char>(damaged[damaged.size() / 2] ^ 0x10);
  sgnn::testing::write_text(dir / "damaged.ckpt", damaged);
  sgnn::testing::write_text(dir / "bad-nodes.txt", "4\n300\n");

  struct Case {
    std::string name, checkpoint, dataset, nodes, expected;
  };
  const std::vector<Case> cases = {
      {"features", checkpoint.string(), wider, "", "nodes have 20 features, the gcn model reads 16"},
      {"classes", checkpoint.string(), (dir / "six-classes").string(), "",
       "labels go up to 5 (6 classes), the model predicts 4 classes"},
      {"version 1", (dir / "v1.ckpt").string(), dataset, "", "--epochs 8 --checkpoint <new file>"},
      {"model kind", (dir / "resnet.ckpt").string(), dataset, "", "unknown model \"resnet\" (registered: gcn"},
      {"damaged", (dir / "damaged.ckpt").string(), dataset, "", "checksum mismatch"},
      {"node list", checkpoint.string(), dataset, (dir / "bad-nodes.txt").string(), "node id 300 >="},
      {"dataset", checkpoint.string(), (dir / "missing").string(), "", "no such file or folder"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    PredictionOptions options;
    options.checkpoint = c.checkpoint;
    options.dataset = c.dataset;
    options.nodes = c.nodes;
    options.predictions = (dir / "out.csv").string();
    options.embeddings = (dir / "out.npy").string();
    CHECK_THROWS_WITH_AS(run_prediction(options), doctest::Contains(c.expected.c_str()), Error);
    CHECK_FALSE(fs::exists(dir / "out.csv"));
    CHECK_FALSE(fs::exists(dir / "out.npy"));
  }
  PredictionOptions options;
  options.checkpoint = checkpoint.string();
  options.dataset = dataset;
  CHECK_THROWS_WITH_AS(run_prediction(options), doctest::Contains("nothing to write"), InvalidArgument);
  options.predictions = (dir / "no-folder" / "out.csv").string();
  CHECK_THROWS_WITH_AS(run_prediction(options), doctest::Contains("does not exist"), IoError);
  CHECK_FALSE(fs::exists(dir / "no-folder"));
}

TEST_CASE("a version 1 checkpoint resumed for no more epochs is re-saved as version 2 and predicts as training did") {
  TempDir dir;
  const std::string dataset = sgnn::testing::write_symmetric_synthetic(dir.path(), "sbm", 300, 1500, 16, 5);
  run_experiment(short_training("gcn", dataset, dir.path()));
  graph_io::SectionFile old =
      graph_io::read_section_file(dir / "model.ckpt", "checkpoint", kOldestCheckpointVersion, kCheckpointVersion);
  old.kind_version = 1;
  old.metadata = {{"model", "gcn"}};
  graph_io::write_section_file(dir / "v1.ckpt", old);

  ExperimentOptions convert;
  convert.dataset = dataset;
  convert.hyperparameters = {{"epochs", "8"}};  // the epochs it ran: nothing more to train
  convert.resume = (dir / "v1.ckpt").string();
  convert.checkpoint = (dir / "converted.ckpt").string();
  const ExperimentResult resumed = run_experiment(convert);
  CHECK(resumed.runs.front().result.history.size() == 8);
  PredictionOptions options;
  options.checkpoint = convert.checkpoint;
  options.dataset = dataset;
  options.predictions = (dir / "converted.csv").string();
  run_prediction(options);
  CHECK(sgnn::testing::read_bytes(dir / "converted.csv") == sgnn::testing::read_bytes(dir / "trained.csv"));
}

TEST_CASE("inductive: trained on Cora with a fifth of its nodes removed, it predicts every node of the full graph") {
  TempDir dir;
  const graph_io::Dataset full = graph_io::load_dataset(sgnn::testing::planetoid_path("cora"));
  const int64_t n = full.num_nodes();
  // Remove every fifth node outside the training split; keep the edges among the rest.
  const auto train = full.train_index.to_vector<int32_t>();
  const std::set<int32_t> train_nodes(train.begin(), train.end());
  std::vector<int32_t> new_id(static_cast<std::size_t>(n), -1);
  std::vector<int32_t> kept;
  for (int32_t v = 0; v < n; ++v) {
    if (v % 5 == 0 && !train_nodes.contains(v)) continue;
    new_id[static_cast<std::size_t>(v)] = static_cast<int32_t>(kept.size());
    kept.push_back(v);
  }
  const auto k = static_cast<int64_t>(kept.size());
  graph_io::Dataset sub;
  sub.name = "cora-sub";
  sub.edges.num_nodes = k;
  std::vector<int32_t> sources, targets;
  const auto full_sources = full.edges.source.to_vector<int32_t>();
  const auto full_targets = full.edges.target.to_vector<int32_t>();
  for (std::size_t e = 0; e < full_sources.size(); ++e) {
    const int32_t s = new_id[static_cast<std::size_t>(full_sources[e])];
    const int32_t t = new_id[static_cast<std::size_t>(full_targets[e])];
    if (s < 0 || t < 0) continue;
    sources.push_back(s);
    targets.push_back(t);
  }
  sub.edges.source = Tensor::from_vector(sources, {static_cast<int64_t>(sources.size())});
  sub.edges.target = Tensor::from_vector(targets, {static_cast<int64_t>(targets.size())});
  const int64_t width = full.features.size(1);
  const auto features = full.features.to_vector<float>();
  const auto labels = full.labels.to_vector<int32_t>();
  std::vector<float> sub_features;
  std::vector<int32_t> sub_labels;
  for (const int32_t v : kept) {
    sub_features.insert(sub_features.end(), features.begin() + v * width, features.begin() + (v + 1) * width);
    sub_labels.push_back(labels[static_cast<std::size_t>(v)]);
  }
  sub.features = Tensor::from_vector(sub_features, {k, width});
  sub.labels = Tensor::from_vector(sub_labels, {k});
  sub.num_classes = full.num_classes;
  const auto remap = [&](const Tensor& split) {
    std::vector<int32_t> ids;
    for (const int32_t v : split.to_vector<int32_t>()) {
      if (new_id[static_cast<std::size_t>(v)] >= 0) ids.push_back(new_id[static_cast<std::size_t>(v)]);
    }
    return Tensor::from_vector(ids, {static_cast<int64_t>(ids.size())});
  };
  sub.train_index = remap(full.train_index);
  sub.valid_index = remap(full.valid_index);
  sub.test_index = remap(full.test_index);
  graph_io::write_ogb_dataset(sub, dir / "cora-sub");

  ExperimentOptions training;
  training.dataset = (dir / "cora-sub").string();
  training.hyperparameters = {{"epochs", "30"}};
  training.checkpoint = (dir / "sub.ckpt").string();
  const ExperimentResult trained = run_experiment(training);
  REQUIRE(trained.nodes == k);

  PredictionOptions options;
  options.checkpoint = (dir / "sub.ckpt").string();
  options.dataset = sgnn::testing::planetoid_path("cora");
  options.predictions = (dir / "full.csv").string();
  const PredictionReport report = run_prediction(options);
  CHECK(report.nodes == n);
  const CsvPredictions predictions = read_predictions_csv(dir / "full.csv");
  REQUIRE(predictions.ids.size() == static_cast<std::size_t>(n));

  // The direct forward pass: the checkpoint resumed into a model built here,
  // its best parameters restored, run on the full graph.
  const graph_io::Graph graph = graph_io::make_graph(full, graph_io::gcn_graph_options(), Device::cpu());
  Generator generator(0);
  const std::shared_ptr<Model> model =
      make_model({.kind = "gcn", .in_features = width, .classes = full.num_classes}, generator);
  Adam optimizer(model->parameter_groups(5e-4f));
  TrainingData data;
  data.graph = GraphInput(graph.adjacency);
  data.features = graph_io::normalize_feature_rows(graph.features);
  data.labels = graph.labels;
  data.train_index = graph.train_index;
  data.valid_index = graph.valid_index;
  Trainer trainer(*model, optimizer, data, {});
  load_checkpoint(dir / "sub.ckpt", *model, optimizer, trainer, generator);
  std::vector<Tensor> parameters = model->parameters();
  for (std::size_t i = 0; i < parameters.size(); ++i) copy_into(parameters[i], trainer.state().best_parameters[i]);
  model->eval();
  autograd::NoGradGuard no_grad;
  const auto direct = ops::softmax(model->forward(data.graph, data.features)).to_vector<float>();
  const auto classes = full.num_classes;
  int64_t removed = 0;
  for (int32_t v = 0; v < n; ++v) {
    CAPTURE(v);
    REQUIRE(predictions.ids[static_cast<std::size_t>(v)] == v);
    const auto begin = direct.begin() + v * classes;
    CHECK(predictions.probabilities[static_cast<std::size_t>(v)] == std::vector<float>(begin, begin + classes));
    removed += new_id[static_cast<std::size_t>(v)] < 0;
  }
  CHECK(removed == n - k);
  MESSAGE("inductive Cora: " << removed << " nodes unseen in training; test accuracy on the full graph "
                             << *report.test_accuracy << ", on the subgraph " << trained.test_accuracy);
}
