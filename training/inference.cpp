#include "training/inference.hpp"

#include "core/autograd.hpp"
#include "ops/cast.hpp"
#include "ops/classification_math.hpp"
#include "ops/softmax.hpp"

namespace sgnn::training {

namespace {

// Evaluation mode and no tape for the scope; the model's mode comes back after.
class InferenceScope {
 public:
  explicit InferenceScope(Model& model) : model_(model), was_training_(model.is_training()) { model_.eval(); }
  ~InferenceScope() { model_.train(was_training_); }
  InferenceScope(const InferenceScope&) = delete;
  InferenceScope& operator=(const InferenceScope&) = delete;

 private:
  Model& model_;
  bool was_training_;
  autograd::NoGradGuard no_grad_;
};

void check_inputs(const Model& model, const GraphInput& graph, const Tensor& features, const char* op) {
  check_floating(features, op, "features");
  check_dim(features, 2, op, "features");
  const Adjacency& adjacency = graph.graph();
  SGNN_CHECK(features.size(0) == adjacency.num_rows(), op, ": ", features.size(0), " feature rows for a graph of ",
             adjacency.num_rows(), " nodes");
  const ModelDescription& description = model.description();
  SGNN_CHECK(!description.described() || features.size(1) == description.in_features, op, ": the features have ",
             features.size(1), " columns, the model reads ", description.in_features);
  SGNN_CHECK(features.device() == model.device() && adjacency.device() == model.device(), op,
             ": the model is on ", model.device().str(), ", the features on ", features.device().str(),
             ", the graph on ", adjacency.device().str());
}

}  // namespace

Predictions predict(Model& model, const GraphInput& graph, const Tensor& features) {
  check_inputs(model, graph, features, "predict");
  const InferenceScope scope(model);
  return predictions_from_logits(model.forward(graph, features));
}

Predictions predictions_from_logits(const Tensor& model_logits) {
  SGNN_CHECK(model_logits.dim() == 2, "predictions_from_logits: logits [N, C], got ", shape_str(model_logits.shape()));
  const autograd::NoGradGuard no_grad;
  Predictions out;
  out.logits = ops::cast(model_logits, DType::Float32);  // a bf16 model's logits, widened
  out.probabilities = ops::softmax(out.logits);
  const Tensor logits = out.logits.to(Device::cpu());
  const int64_t rows = logits.size(0);
  const int64_t classes = logits.size(1);
  std::vector<int32_t> predicted(static_cast<std::size_t>(rows));
  const float* values = logits.data<float>();
  for (int64_t r = 0; r < rows; ++r) {
    predicted[static_cast<std::size_t>(r)] = static_cast<int32_t>(ops::predicted_class(values + r * classes, classes));
  }
  out.classes = Tensor::from_vector(predicted, {rows});
  return out;
}

Tensor embed(Model& model, const GraphInput& graph, const Tensor& features) {
  check_inputs(model, graph, features, "embed");
  const Sequential& layers = model.layers();
  // The last two layers with parameters: the embedding is what leaves the
  // first of them (and its activation) and enters the second.
  std::size_t last = layers.size();
  std::size_t before_last = layers.size();
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i]->parameters().empty()) continue;
    before_last = last;
    last = i;
  }
  SGNN_CHECK(before_last < layers.size(), "embed: the ", model.kind(),
             " model has no hidden layer (one layer with parameters at most)");
  const InferenceScope scope(model);
  Tensor x = ops::cast(features, model.activation_dtype());
  for (std::size_t i = 0; i < last; ++i) x = layers[i]->forward(graph, x);
  return ops::cast(x, DType::Float32);
}

bool has_embeddings(const Model& model) {
  int64_t with_parameters = 0;
  const Sequential& layers = model.layers();
  for (std::size_t i = 0; i < layers.size(); ++i) with_parameters += layers[i]->parameters().empty() ? 0 : 1;
  return with_parameters >= 2;
}

Predictions write_model_outputs(const OutputFiles& files, Model& model, const GraphInput& graph,
                                const Tensor& features, const OutputRows& rows) {
  Predictions predictions = predict(model, graph, features);
  if (!files.embeddings.empty()) write_embeddings(files.embeddings, embed(model, graph, features), rows);
  if (!files.predictions.empty()) {
    write_predictions(files.predictions, predictions.probabilities, predictions.classes, rows);
  }
  return predictions;
}

}  // namespace sgnn::training
