// training::predict / embed, the prediction and embedding files (CSV and
// NPY) and the NPY header.
#include <doctest/doctest.h>

#include <charconv>
#include <cstring>
#include <sstream>

#include "core/autograd.hpp"
#include "ops/softmax.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/training_task.hpp"
#include "training/output/npy_header.hpp"
#include "training/inference.hpp"

using namespace sgnn;
using namespace sgnn::training;
using sgnn::testing::TempDir;

namespace {

// The model trained for a few epochs, so outputs are not the initial ones.
struct Trained {
  Trained() : task(sgnn::testing::tiny_task(3)), generator(4), model(sgnn::testing::tiny_gcn(task, generator)) {
    Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.02f});
    TrainerOptions options;
    options.epochs = 5;
    Trainer trainer(*model, optimizer, task.data, options);
    trainer.fit();
  }
  sgnn::testing::TinyTask task;
  Generator generator;
  std::shared_ptr<Model> model;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
  return fields;
}

float parse_float(const std::string& text) {
  float value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  REQUIRE(result.ptr == text.data() + text.size());
  return value;
}

template <typename T>
T read_at(const std::string& bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

}  // namespace

TEST_CASE("npy_header: magic, version 1.0, a dict padded so the data starts at a multiple of 64") {
  for (const int64_t rows : {0, 7, 123456789}) {
    const std::string header = npy_header("[('node', '<i8'), ('values', '<f4', (3,))]", rows);
    CHECK(header.substr(0, 6) == "\x93NUMPY");
    CHECK(header[6] == '\x01');
    CHECK(header[7] == '\x00');
    const auto length = static_cast<std::size_t>(static_cast<unsigned char>(header[8]) |
                                                 (static_cast<unsigned char>(header[9]) << 8));
    CHECK(header.size() == 10 + length);
    CHECK(header.size() % 64 == 0);
    CHECK(header.back() == '\n');
    CHECK(header.find("'shape': (" + std::to_string(rows) + ",)") != std::string::npos);
    CHECK(header.find("'fortran_order': False") != std::string::npos);
  }
  CHECK_THROWS_AS(npy_header("'<f4'", -1), InvalidArgument);
  CHECK_THROWS_AS(npy_header(std::string(70000, 'x'), 1), InvalidArgument);
}

TEST_CASE("predict: softmax of the evaluation-mode logits, argmax classes, and the model's mode comes back") {
  Trained t;
  t.model->train();
  const Predictions predictions = predict(*t.model, t.task.data.graph, t.task.data.features);
  CHECK(t.model->is_training());
  CHECK_FALSE(predictions.logits.requires_grad());
  t.model->eval();
  Tensor logits;
  {
    autograd::NoGradGuard no_grad;
    logits = t.model->forward(t.task.data.graph, t.task.data.features);
  }
  CHECK(predictions.logits.to_vector<float>() == logits.to_vector<float>());  // no dropout: the same bits
  CHECK(predictions.probabilities.to_vector<float>() == ops::softmax(logits).to_vector<float>());
  const auto values = logits.to_vector<float>();
  const auto classes = predictions.classes.to_vector<int32_t>();
  const int64_t width = logits.size(1);
  REQUIRE(classes.size() == static_cast<std::size_t>(logits.size(0)));
  for (std::size_t r = 0; r < classes.size(); ++r) {
    const float* row = values.data() + r * static_cast<std::size_t>(width);
    CHECK(*std::max_element(row, row + width) == row[classes[r]]);
    CHECK(std::find(row, row + width, row[classes[r]]) == row + classes[r]);  // ties: the smallest class
  }
}

TEST_CASE("embed: the hidden layer after its activation (GCN: ReLU), in evaluation mode") {
  Trained t;
  const Tensor embeddings = embed(*t.model, t.task.data.graph, t.task.data.features);
  // tiny_gcn: dropout, GCNConv(8 -> 8), ReLU, dropout, GCNConv(8 -> 3).
  CHECK(embeddings.shape() == Shape{t.task.data.features.size(0), 8});
  t.model->eval();
  autograd::NoGradGuard no_grad;
  const Sequential& layers = t.model->layers();
  const GraphInput& graph = t.task.data.graph;
  const Tensor hidden = layers[2]->forward(graph, layers[1]->forward(graph, t.task.data.features));
  CHECK(embeddings.to_vector<float>() == hidden.to_vector<float>());
  // The last layer applied to the embedding gives the logits.
  CHECK(layers[4]->forward(t.task.data.graph, embeddings).to_vector<float>() ==
        t.model->forward(t.task.data.graph, t.task.data.features).to_vector<float>());
}

TEST_CASE("embed: a GAT's hidden layer is its heads concatenated after ELU") {
  const sgnn::testing::TinyTask task = sgnn::testing::tiny_task(5);
  Generator generator(2);
  const std::shared_ptr<Model> gat = sgnn::testing::tiny_gat(task, generator);
  const Tensor embeddings = embed(*gat, task.data.graph, task.data.features);
  CHECK(embeddings.shape() == Shape{task.data.features.size(0), 3 * 4});  // 3 heads of 4
  for (const float value : embeddings.to_vector<float>()) CHECK(value >= -1.0f);  // ELU's range
}

TEST_CASE("predict and embed refuse inputs that do not fit the model") {
  Trained t;
  const Tensor narrow = Tensor::zeros({t.task.data.features.size(0), 5});
  CHECK_THROWS_WITH_AS(predict(*t.model, t.task.data.graph, narrow), doctest::Contains("the model reads 8"),
                       InvalidArgument);
  const Tensor short_rows = t.task.data.features.narrow_rows(0, 3);
  CHECK_THROWS_WITH_AS(embed(*t.model, t.task.data.graph, short_rows), doctest::Contains("3 feature rows"),
                       InvalidArgument);
  Generator generator(1);
  const std::shared_ptr<Model> linear =
      make_model({.kind = "gcn", .in_features = 8, .classes = 3, .hyperparameters = {{"layers", "1"}}}, generator);
  CHECK_THROWS_WITH_AS(embed(*linear, t.task.data.graph, t.task.data.features), doctest::Contains("no hidden layer"),
                       InvalidArgument);
}

TEST_CASE("output_rows: every node in dataset order through node_order, or the listed ids in their order") {
  // Graph row i holds the dataset's node node_order[i].
  const Tensor node_order = Tensor::from_vector(std::vector<int32_t>{2, 0, 3, 1}, {4});
  const OutputRows all = output_rows(4, node_order);
  CHECK(all.ids == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(all.rows == std::vector<int64_t>{1, 3, 0, 2});
  const OutputRows some = output_rows(4, node_order, {3, 0});
  CHECK(some.ids == std::vector<int64_t>{3, 0});
  CHECK(some.rows == std::vector<int64_t>{2, 1});
  const OutputRows identity = output_rows(3, Tensor());
  CHECK(identity.rows == std::vector<int64_t>{0, 1, 2});
  CHECK_THROWS_AS(output_rows(4, node_order, {4}), InvalidArgument);
}

TEST_CASE("prediction and embedding files: CSV and NPY hold each listed node's id, class and exact values") {
  Trained t;
  const Predictions predictions = predict(*t.model, t.task.data.graph, t.task.data.features);
  const Tensor embeddings = embed(*t.model, t.task.data.graph, t.task.data.features);
  const int64_t nodes = t.task.data.features.size(0);
  // A reordered graph: dataset node id k sits in row nodes-1-k.
  std::vector<int32_t> order(static_cast<std::size_t>(nodes));
  for (int64_t row = 0; row < nodes; ++row) {
    order[static_cast<std::size_t>(row)] = static_cast<int32_t>(nodes - 1 - row);
  }
  const OutputRows rows = output_rows(nodes, Tensor::from_vector(order, {nodes}), {5, 0, 17});
  const auto probabilities = predictions.probabilities.to_vector<float>();
  const auto classes = predictions.classes.to_vector<int32_t>();
  const auto hidden = embeddings.to_vector<float>();
  TempDir dir;

  write_predictions(dir / "p.csv", predictions.probabilities, predictions.classes, rows);
  const std::vector<std::string> csv = lines_of(sgnn::testing::read_bytes(dir / "p.csv"));
  REQUIRE(csv.size() == 4);
  CHECK(csv[0] == "node,class,p0,p1,p2");
  for (std::size_t k = 0; k < 3; ++k) {
    const std::vector<std::string> fields = fields_of(csv[k + 1]);
    REQUIRE(fields.size() == 5);
    const auto row = static_cast<std::size_t>(rows.rows[k]);
    CHECK(fields[0] == std::to_string(rows.ids[k]));
    CHECK(fields[1] == std::to_string(classes[row]));
    for (std::size_t c = 0; c < 3; ++c) CHECK(parse_float(fields[2 + c]) == probabilities[row * 3 + c]);
  }

  write_embeddings(dir / "e.csv", embeddings, rows);
  const std::vector<std::string> embedding_csv = lines_of(sgnn::testing::read_bytes(dir / "e.csv"));
  REQUIRE(embedding_csv.size() == 4);
  CHECK(embedding_csv[0] == "node,e0,e1,e2,e3,e4,e5,e6,e7");
  CHECK(fields_of(embedding_csv[1])[0] == "5");
  CHECK(parse_float(fields_of(embedding_csv[1])[8]) == hidden[static_cast<std::size_t>(rows.rows[0]) * 8 + 7]);

  write_predictions(dir / "p.npy", predictions.probabilities, predictions.classes, rows);
  const std::string npy = sgnn::testing::read_bytes(dir / "p.npy");
  const std::string header = npy_header("[('node', '<i8'), ('class', '<i4'), ('probabilities', '<f4', (3,))]", 3);
  REQUIRE(npy.size() == header.size() + 3 * (8 + 4 + 12));
  CHECK(npy.substr(0, header.size()) == header);
  for (std::size_t k = 0; k < 3; ++k) {
    const std::size_t record = header.size() + k * 24;
    const auto row = static_cast<std::size_t>(rows.rows[k]);
    CHECK(read_at<int64_t>(npy, record) == rows.ids[k]);
    CHECK(read_at<int32_t>(npy, record + 8) == classes[row]);
    for (std::size_t c = 0; c < 3; ++c) CHECK(read_at<float>(npy, record + 12 + 4 * c) == probabilities[row * 3 + c]);
  }

  write_embeddings(dir / "e.npy", embeddings, rows);
  const std::string embedding_npy = sgnn::testing::read_bytes(dir / "e.npy");
  const std::string embedding_header = npy_header("[('node', '<i8'), ('embedding', '<f4', (8,))]", 3);
  REQUIRE(embedding_npy.size() == embedding_header.size() + 3 * (8 + 32));
  CHECK(read_at<int64_t>(embedding_npy, embedding_header.size() + 40) == 0);
  CHECK(read_at<float>(embedding_npy, embedding_header.size() + 40 + 8) ==
        hidden[static_cast<std::size_t>(rows.rows[1]) * 8]);
}

TEST_CASE("output files: a missing folder or a folder as the name is refused and nothing is written") {
  Trained t;
  const Predictions predictions = predict(*t.model, t.task.data.graph, t.task.data.features);
  const OutputRows rows = output_rows(t.task.data.features.size(0), Tensor());
  TempDir dir;
  CHECK_THROWS_WITH_AS(require_output_path(dir / "missing" / "p.csv", "--predictions"),
                       doctest::Contains("does not exist"), IoError);
  CHECK_THROWS_WITH_AS(require_output_path(dir.path(), "--predictions"), doctest::Contains("is a folder"), IoError);
  CHECK_NOTHROW(require_output_path(dir / "p.csv", "--predictions"));
  CHECK_THROWS_AS(write_predictions(dir / "missing" / "p.csv", predictions.probabilities, predictions.classes, rows),
                  IoError);
  CHECK_FALSE(std::filesystem::exists(dir / "missing"));
  // An existing file survives a failed write untouched: here a row past the end.
  sgnn::testing::write_text(dir / "p.csv", "old\n");
  OutputRows bad = rows;
  bad.rows.back() = t.task.data.features.size(0);
  CHECK_THROWS_AS(write_predictions(dir / "p.csv", predictions.probabilities, predictions.classes, bad),
                  InvalidArgument);
  CHECK(sgnn::testing::read_bytes(dir / "p.csv") == "old\n");
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()) == 1);
}
