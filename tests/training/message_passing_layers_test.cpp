// SAGEConv (mean, max-pool), GINConv, GATv2Conv and TransformerConv against
// float64 references of their formulas written from the edge list (not the
// library's CSR), their gradients against finite differences, the
// adjacency form each asks for, and their refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "graph_io/graph.hpp"
#include "graph_io/prepare.hpp"
#include "tests/support/testing.hpp"
#include "tests/training/dense_reference.hpp"
#include "training/nn/basic_layers.hpp"
#include "training/nn/gatv2_conv.hpp"
#include "training/nn/gin_conv.hpp"
#include "training/nn/linear.hpp"
#include "training/nn/normalization_layers.hpp"
#include "training/nn/sage_conv.hpp"
#include "training/nn/transformer_conv.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;
using graph_io::Normalization;
using graph_io::SelfLoops;

namespace {

constexpr int64_t kNodes = 10;  // node 9 has no edges: its row is empty

// A small graph: random directed edges among nodes 0-8 with two self loops,
// symmetrised and prepared with `self_loops` and no normalisation, with its
// forms; and each node's neighbours other than itself, from the edge list.
struct TinyGraph {
  graph_io::Graph graph;
  std::vector<std::set<std::size_t>> neighbours;
};

TinyGraph tiny_graph(SelfLoops self_loops, uint64_t seed = 3) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int32_t> node(0, kNodes - 2);
  std::vector<int32_t> source{2, 5}, target{2, 5};
  for (int k = 0; k < 18; ++k) {
    source.push_back(node(engine));
    target.push_back(node(engine));
  }
  TinyGraph tiny;
  tiny.neighbours.resize(kNodes);
  for (std::size_t k = 0; k < source.size(); ++k) {
    if (source[k] == target[k]) continue;
    tiny.neighbours[static_cast<std::size_t>(target[k])].insert(static_cast<std::size_t>(source[k]));
    tiny.neighbours[static_cast<std::size_t>(source[k])].insert(static_cast<std::size_t>(target[k]));
  }
  graph_io::EdgeList edges;
  edges.num_nodes = kNodes;
  edges.source = Tensor::from_vector(source, {static_cast<int64_t>(source.size())});
  edges.target = Tensor::from_vector(target, {static_cast<int64_t>(target.size())});
  graph_io::PrepareOptions options;
  options.symmetrize = true;
  options.self_loops = self_loops;
  tiny.graph.adjacency = graph_io::prepare_adjacency(edges, options);
  tiny.graph.forms = std::make_shared<graph_io::AdjacencyVariants>(tiny.graph.adjacency, options);
  tiny.graph.num_nodes = kNodes;
  return tiny;
}

void randomize_parameters(Module& module, uint64_t seed) {
  for (Tensor p : module.parameters()) copy_into(p, random_tensor(p.shape(), seed++, -0.5, 0.5));
}

Tensor parameter(const Module& module, const std::string& name) {
  for (const auto& [key, value] : module.named_parameters())
    if (key == name) return value;
  FAIL("no parameter " << name);
  return Tensor();
}

// x·W + b in float64 (b may be undefined).
Matrix affine(const Matrix& x, const Tensor& weight, const Tensor& bias) {
  Matrix out = multiply(x, to_matrix(weight));
  if (bias.defined()) {
    const std::vector<double> b = to_double(bias);
    for (auto& row : out)
      for (std::size_t j = 0; j < row.size(); ++j) row[j] += b[j];
  }
  return out;
}

Matrix add(Matrix a, const Matrix& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[i].size(); ++j) a[i][j] += b[i][j];
  return a;
}

Matrix relu(Matrix a) {
  for (auto& row : a)
    for (double& v : row) v = std::max(v, 0.0);
  return a;
}

// Per head h and row i, Σ_j α[i←j] v_j over `neighbours`, α the softmax of
// score(i, j, h); then the concatenation or the mean over heads.
template <typename Score>
Matrix attend(const std::vector<std::set<std::size_t>>& neighbours, const Matrix& values, std::size_t heads,
              std::size_t features, bool concat, const Score& score) {
  Matrix out(neighbours.size(), std::vector<double>(concat ? heads * features : features, 0.0));
  for (std::size_t i = 0; i < neighbours.size(); ++i) {
    for (std::size_t h = 0; h < heads; ++h) {
      double top = -1e300, total = 0.0;
      for (const std::size_t j : neighbours[i]) top = std::max(top, score(i, j, h));
      for (const std::size_t j : neighbours[i]) total += std::exp(score(i, j, h) - top);
      for (const std::size_t j : neighbours[i]) {
        const double alpha = std::exp(score(i, j, h) - top) / total;
        for (std::size_t f = 0; f < features; ++f) {
          const double contribution = alpha * values[j][h * features + f];
          if (concat) out[i][h * features + f] += contribution;
          else out[i][f] += contribution / static_cast<double>(heads);
        }
      }
    }
  }
  return out;
}

// Over x and every parameter but `without` (one whose gradient is zero by
// the formula: a bias before a batch norm, the key's bias under a row
// softmax; relative errors of zero gradients are noise).
double gradient_error_of(Layer& layer, const GraphInput& graph, const Tensor& x, const std::string& without = "") {
  Tensor leaf = x.clone().set_requires_grad(true);
  std::vector<Tensor> inputs;
  for (const auto& [name, value] : layer.named_parameters()) {
    if (name != without) inputs.push_back(value);
  }
  inputs.push_back(leaf);
  return gradient_error([&](const std::vector<Tensor>&) { return layer.forward(graph, leaf); }, inputs, 1e-3);
}

}  // namespace

TEST_CASE("SAGEConv: the neighbours' mean or max-pool times W_neighbours plus x·W_root plus b, without self loops") {
  const TinyGraph tiny = tiny_graph(SelfLoops::Remove);
  const GraphInput graph(tiny.graph);
  for (const SAGEAggregator aggregator : {SAGEAggregator::Mean, SAGEAggregator::MaxPool}) {
    for (const auto& [in, out] : {std::pair<int64_t, int64_t>{5, 3}, {3, 5}}) {  // both orders of the mean
      const std::string name = sage_aggregator_name(aggregator);
      CAPTURE(name);
      CAPTURE(in);
      Generator generator(2);
      SAGEConv conv(in, out, generator, {.aggregator = aggregator});
      randomize_parameters(conv, 20);
      const Tensor x = random_tensor({kNodes, in}, 4);
      Matrix messages = to_matrix(x);
      if (aggregator == SAGEAggregator::MaxPool) {
        messages = relu(affine(messages, parameter(conv, "pool_weight"), parameter(conv, "pool_bias")));
      }
      Matrix aggregated(kNodes, std::vector<double>(messages[0].size(), 0.0));  // an empty row gives 0
      for (std::size_t i = 0; i < kNodes; ++i) {
        for (std::size_t f = 0; f < messages[0].size(); ++f) {
          double sum = 0.0, top = -1e300;
          for (const std::size_t j : tiny.neighbours[i]) {
            sum += messages[j][f];
            top = std::max(top, messages[j][f]);
          }
          if (tiny.neighbours[i].empty()) continue;
          aggregated[i][f] = aggregator == SAGEAggregator::Mean ? sum / static_cast<double>(tiny.neighbours[i].size())
                                                                : top;
        }
      }
      const Matrix expected = add(affine(aggregated, parameter(conv, "weight_neighbours"), parameter(conv, "bias")),
                                  affine(to_matrix(x), parameter(conv, "weight_root"), Tensor()));
      CHECK(relative_error(conv.forward(graph, x), flatten(expected)) < 1e-5);
      CHECK(gradient_error_of(conv, graph, x) < 2e-2);
    }
  }
  CHECK(tiny.graph.forms->derived_count() == 0);  // prepared in the form SAGEConv asks for
}

TEST_CASE("GINConv: MLP((1 + eps)·x_i + the neighbours' sum without self loops), eps learned") {
  const TinyGraph tiny = tiny_graph(SelfLoops::Remove);
  const GraphInput graph(tiny.graph);
  Generator generator(5);
  // hidden 6: the sum comes first; hidden 2 (narrower than the input): the
  // first Linear's product comes first (gin_conv.hpp). The same function.
  for (const int64_t width : {6, 2}) {
    CAPTURE(width);
    auto mlp = std::make_shared<Sequential>();
    mlp->append(std::make_shared<Linear>(4, width, generator));
    mlp->append(std::make_shared<BatchNorm1d>(width));
    mlp->append(std::make_shared<Relu>());
    mlp->append(std::make_shared<Linear>(width, 3, generator));
    GINConv conv(4, mlp);
    randomize_parameters(conv, 30);
    CHECK(conv.named_parameters().front().first == "eps");
    const double eps = to_double(conv.eps())[0];
    REQUIRE(eps != 0.0);
    const Tensor x = random_tensor({kNodes, 4}, 6);
    const Matrix xs = to_matrix(x);
    Matrix combined = xs;
    for (std::size_t i = 0; i < kNodes; ++i) {
      for (std::size_t f = 0; f < 4; ++f) {
        combined[i][f] *= 1.0 + eps;
        for (const std::size_t j : tiny.neighbours[i]) combined[i][f] += xs[j][f];
      }
    }
    // The MLP in float64, the batch norm with the batch's mean and biased variance (training mode).
    Matrix hidden = affine(combined, parameter(conv, "mlp.0.weight"), parameter(conv, "mlp.0.bias"));
    const std::vector<double> gamma = to_double(parameter(conv, "mlp.1.weight"));
    const std::vector<double> beta = to_double(parameter(conv, "mlp.1.bias"));
    for (std::size_t f = 0; f < static_cast<std::size_t>(width); ++f) {
      double mean = 0.0, variance = 0.0;
      for (const auto& row : hidden) mean += row[f] / kNodes;
      for (const auto& row : hidden) variance += (row[f] - mean) * (row[f] - mean) / kNodes;
      for (auto& row : hidden) row[f] = (row[f] - mean) / std::sqrt(variance + 1e-5) * gamma[f] + beta[f];
    }
    const Matrix expected = affine(relu(hidden), parameter(conv, "mlp.3.weight"), parameter(conv, "mlp.3.bias"));
    CHECK(relative_error(conv.forward(graph, x), flatten(expected)) < 1e-5);
    // Every gradient but mlp.0.bias's (zero: the batch norm subtracts it), eps's and x's among them.
    CHECK(gradient_error_of(conv, graph, x, "mlp.0.bias") < 2e-2);
  }

  GINConv constant(4, std::make_shared<Linear>(4, 3, generator), /*train_eps=*/false);
  CHECK(constant.named_parameters().size() == 2);  // the Linear's only: eps is a buffer
  CHECK(constant.named_buffers().front().first == "eps");
  CHECK_THROWS_WITH_AS(constant.forward(graph, random_tensor({kNodes, 5}, 1)), doctest::Contains("GINConv"),
                       InvalidArgument);
}

TEST_CASE("GATv2Conv: a·LeakyReLU(W_target x_i + W_source x_j) attention over the neighbours and one self loop") {
  const TinyGraph tiny = tiny_graph(SelfLoops::Add);
  const GraphInput graph(tiny.graph);
  std::vector<std::set<std::size_t>> with_self = tiny.neighbours;
  for (std::size_t i = 0; i < kNodes; ++i) with_self[i].insert(i);
  for (const bool concat : {true, false}) {
    CAPTURE(concat);
    Generator generator(7);
    GATv2Conv conv(5, 3, generator, {.heads = 2, .concat = concat, .attention_dropout = 0.5f});
    randomize_parameters(conv, 40);
    conv.eval();  // no attention dropout
    const Tensor x = random_tensor({kNodes, 5}, 8);
    const Matrix source = affine(to_matrix(x), parameter(conv, "source.weight"), parameter(conv, "source.bias"));
    const Matrix target = affine(to_matrix(x), parameter(conv, "target.weight"), parameter(conv, "target.bias"));
    const std::vector<double> a = to_double(parameter(conv, "attention"));
    const auto score = [&](std::size_t i, std::size_t j, std::size_t h) {
      double s = 0.0;
      for (std::size_t f = 0; f < 3; ++f) {
        const double z = target[i][h * 3 + f] + source[j][h * 3 + f];
        s += a[h * 3 + f] * (z > 0 ? z : 0.2 * z);
      }
      return s;
    };
    Matrix expected = attend(with_self, source, 2, 3, concat, score);
    const std::vector<double> bias = to_double(parameter(conv, "bias"));
    for (auto& row : expected)
      for (std::size_t j = 0; j < row.size(); ++j) row[j] += bias[j];
    const Tensor y = conv.forward(graph, x);
    CHECK(y.shape() == Shape{kNodes, concat ? 6 : 3});
    CHECK(relative_error(y, flatten(expected)) < 1e-5);
    CHECK(gradient_error_of(conv, graph, x) < 2e-2);
    conv.train();
    CHECK(relative_error(conv.forward(graph, x), flatten(expected)) > 1e-3);  // the attention is dropped
  }
  CHECK(tiny.graph.forms->derived_count() == 0);
  Generator generator(1);
  CHECK_THROWS_WITH_AS(GATv2Conv(3, 2, generator, {.heads = 0}), doctest::Contains("must be positive"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(GATv2Conv(3, 2, generator, {.attention_dropout = 1.0f}), doctest::Contains("attention dropout"),
                       InvalidArgument);
}

TEST_CASE("TransformerConv: softmax(q_i·k_j / sqrt(F)) over the neighbours times v_j, plus the root weight") {
  const TinyGraph tiny = tiny_graph(SelfLoops::Remove);
  const GraphInput graph(tiny.graph);
  for (const bool concat : {true, false}) {
    CAPTURE(concat);
    Generator generator(9);
    TransformerConv conv(5, 4, generator, {.heads = 2, .concat = concat, .attention_dropout = 0.5f});
    randomize_parameters(conv, 50);
    conv.eval();
    const Tensor x = random_tensor({kNodes, 5}, 10);
    const Matrix xs = to_matrix(x);
    const Matrix query = affine(xs, parameter(conv, "query.weight"), parameter(conv, "query.bias"));
    const Matrix key = affine(xs, parameter(conv, "key.weight"), parameter(conv, "key.bias"));
    const Matrix value = affine(xs, parameter(conv, "value.weight"), parameter(conv, "value.bias"));
    const auto score = [&](std::size_t i, std::size_t j, std::size_t h) {
      double s = 0.0;
      for (std::size_t f = 0; f < 4; ++f) s += query[i][h * 4 + f] * key[j][h * 4 + f];
      return s / 2.0;  // √F, F = 4
    };
    const Matrix expected = add(attend(tiny.neighbours, value, 2, 4, concat, score),
                                affine(xs, parameter(conv, "skip.weight"), parameter(conv, "skip.bias")));
    const Tensor y = conv.forward(graph, x);
    CHECK(y.shape() == Shape{kNodes, concat ? 8 : 4});
    CHECK(relative_error(y, flatten(expected)) < 1e-5);
    CHECK(gradient_error_of(conv, graph, x, "key.bias") < 2e-2);
  }
  Generator generator(1);
  TransformerConv no_root(5, 4, generator, {.root_weight = false});
  CHECK(no_root.named_parameters().size() == 6);  // query, key, value
  CHECK(no_root.forward(graph, random_tensor({kNodes, 5}, 2)).to_vector<float>()[9 * 4] == 0.0f);  // empty row
  CHECK_THROWS_WITH_AS(no_root.forward(graph, random_tensor({kNodes - 1, 5}, 2)),
                       doctest::Contains("the graph has 10 nodes"), InvalidArgument);
}

TEST_CASE("each layer derives its adjacency form once from a graph prepared in another, and refuses a bare input") {
  const TinyGraph tiny = tiny_graph(SelfLoops::Keep);  // the input's two self loops kept
  const GraphInput graph(tiny.graph);
  Generator generator(1);
  SAGEConv sage(4, 3, generator);
  GATv2Conv gatv2(4, 3, generator);
  const Tensor x = random_tensor({kNodes, 4}, 3);
  sage.forward(graph, x);
  sage.forward(graph, x);
  CHECK(tiny.graph.forms->derived_count() == 1);  // no self loops
  gatv2.forward(graph, x);
  CHECK(tiny.graph.forms->derived_count() == 2);  // one self loop per node
  CHECK_THROWS_WITH_AS(sage.forward(GraphInput(tiny.graph.adjacency), x), doctest::Contains("GraphInput(graph)"),
                       InvalidArgument);
}
