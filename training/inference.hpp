// Running a trained model: class predictions and node embeddings.
//
// Both run the model in evaluation mode (no dropout) without building an
// autograd tape, and leave its mode as it was. `graph` is the adjacency the
// model was trained on or another one prepared the same way (inductive use:
// new nodes and edges); `features` [N, F] float32 (or bfloat16) on the model's device, N the
// graph's nodes, F the model's input width, transformed as in training
// (graph_io::apply_feature_transform with the description's transform).
// Rows are the graph's nodes in its order (graph_io::Graph::node_order maps
// them to the dataset's ids). InvalidArgument for a width, node count or
// device that does not match.
#pragma once

#include <filesystem>

#include "training/nn/models.hpp"
#include "training/output/prediction_writer.hpp"

namespace sgnn::training {

// A bf16 model computes in bfloat16; its logits and embeddings come out
// widened to float32 (exactly: every bfloat16 is a float32).
struct Predictions {
  Tensor logits;         // [N, C] float32, on the model's device: the model's output
  Tensor probabilities;  // [N, C] float32, on the model's device: softmax of the logits, rows sum to 1
  Tensor classes;        // host int32 [N]: argmax of the logits, ties to the smallest class (as accuracy counts)
};

Predictions predict(Model& model, const GraphInput& graph, const Tensor& features);

// The probabilities and classes of logits [N, C] (any float dtype, any
// device) as predict() gives them; mini-batch runs pass layer-wise
// inference's logits (training/minibatch_inference.hpp).
Predictions predictions_from_logits(const Tensor& logits);

// The last hidden layer: the input of the model's last layer with
// parameters (GCN: after ReLU, [N, hidden]; GAT: after ELU, the heads
// concatenated, [N, heads · hidden]), on the model's device.
Tensor embed(Model& model, const GraphInput& graph, const Tensor& features);
// Whether `model` has embeddings: two layers with parameters or more (SGC,
// one linear layer after the propagation, has none).
bool has_embeddings(const Model& model);

// What to write; an empty path is not written.
struct OutputFiles {
  std::filesystem::path predictions;
  std::filesystem::path embeddings;
};

// Runs predict (always: the caller may score it) and embed (when asked) on
// `model` and writes the files asked for. Returns the predictions.
Predictions write_model_outputs(const OutputFiles& files, Model& model, const GraphInput& graph,
                                const Tensor& features, const OutputRows& rows);

}  // namespace sgnn::training
