#include "training/trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>
#include <vector>

#include "core/autograd.hpp"
#include "core/memory.hpp"
#include "ops/loss.hpp"
#include "training/gradient_ranges.hpp"
#include "training/numerics_check.hpp"

namespace sgnn::training {

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Always on: the loss is read back every epoch anyway, so this costs nothing.
void require_finite_loss(double loss, int64_t epoch) {
  if (std::isfinite(loss)) return;
  throw NumericalError(detail::concat(
      "epoch ", epoch, ": the training loss is ", loss,
      "; training stopped. A NaN or Inf reached the loss (non-finite features or weights, a diverging learning "
      "rate, ...); rerun with --check-numerics (training::set_check_numerics) to find the op and layer that "
      "produced it"));
}

void check_index(const Tensor& index, const Tensor& features, const char* name, bool required) {
  if (!index.defined()) {
    SGNN_CHECK(!required, "Trainer: the ", name, " split is required but undefined");
    return;
  }
  check_dtype(index, DType::Int32, "Trainer", name);
  check_dim(index, 1, "Trainer", name);
  check_same_device(index, features, "Trainer");
  SGNN_CHECK(index.numel() > 0 || !required, "Trainer: the ", name, " split is empty");
}

void check_data(const TrainingData& data, const Model& model) {
  check_floating(data.features, "Trainer", "features");
  check_dim(data.features, 2, "Trainer", "features");
  check_defined(data.labels, "Trainer", "labels");
  check_dtype(data.labels, DType::Int32, "Trainer", "labels");
  check_dim(data.labels, 1, "Trainer", "labels");
  SGNN_CHECK(data.labels.size(0) == data.features.size(0), "Trainer: ", data.labels.size(0), " labels for ",
             data.features.size(0), " nodes");
  check_same_device(data.labels, data.features, "Trainer");
  SGNN_CHECK(data.features.device() == model.device(), "Trainer: the data is on ", data.features.device().str(),
             ", the model on ", model.device().str(), " (move the model with to() first)");
  SGNN_CHECK(data.graph.graph().device() == data.features.device(), "Trainer: the graph is on ",
             data.graph.graph().device().str(), ", the features on ", data.features.device().str());
  check_index(data.train_index, data.features, "train_index", true);
  check_index(data.valid_index, data.features, "valid_index", true);
  check_index(data.test_index, data.features, "test_index", false);
}

// In BFloat16 the optimizer must refresh the model's compute copies (it holds
// them when built from Model::parameter_groups after to() and
// set_precision); otherwise the GEMMs would run on stale weights.
void check_compute_copies(const Model& model, const Optimizer& optimizer) {
  for (const Tensor& copy : model.compute_copies()) {
    if (!copy.defined()) continue;
    bool held = false;
    for (const ParameterGroup& group : optimizer.groups()) {
      for (const Tensor& candidate : group.compute_copies) held = held || candidate.shares_storage_with(copy);
    }
    SGNN_CHECK(held, "Trainer: the model computes in ", precision_name(model.precision()),
               " but the optimizer does not hold its weight copies; build the optimizer from "
               "model.parameter_groups(...) after model.to(device) and set_precision");
  }
}

}  // namespace

const char* monitor_name(Monitor monitor) {
  switch (monitor) {
    case Monitor::ValidationAccuracy: return "accuracy";
    case Monitor::ValidationLoss: return "loss";
    case Monitor::ValidationLossAndAccuracy: return "loss+accuracy";
  }
  return "?";
}

EpochVerdict judge_epoch(Monitor monitor, const EpochRecord& record, TrainingState& state) {
  EpochVerdict verdict;
  if (monitor == Monitor::ValidationLossAndAccuracy) {
    const bool accuracy_best = record.validation_accuracy >= state.best_validation_accuracy;
    const bool loss_best = record.validation_loss <= state.best_validation_loss;
    verdict.improved = accuracy_best || loss_best;
    verdict.keep = accuracy_best && loss_best;
    state.best_validation_accuracy = std::max(state.best_validation_accuracy, record.validation_accuracy);
    state.best_validation_loss = std::min(state.best_validation_loss, record.validation_loss);
    return verdict;
  }
  verdict.improved = monitor == Monitor::ValidationAccuracy
                         ? record.validation_accuracy > state.best_validation_accuracy
                         : record.validation_loss < state.best_validation_loss;
  verdict.keep = verdict.improved;
  if (verdict.improved) {
    state.best_validation_accuracy = record.validation_accuracy;
    state.best_validation_loss = record.validation_loss;
  }
  return verdict;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return (lower + upper) / 2.0;
}

bool resolve_step_capture(StepCapture capture, Device device) {
  switch (capture) {
    case StepCapture::Off: return false;
    case StepCapture::On:
      SGNN_CHECK(device.is_cuda(), "Trainer: step capture (--cuda-graph on) needs a CUDA device, got ", device.str());
      return true;
    case StepCapture::Auto: return device.is_cuda();
  }
  return false;
}

StepCapture parse_step_capture(const std::string& text) {
  if (text == "auto") return StepCapture::Auto;
  if (text == "on") return StepCapture::On;
  if (text == "off") return StepCapture::Off;
  throw InvalidArgument(detail::concat("step capture must be auto, on or off, got \"", text, "\""));
}

const char* step_capture_name(StepCapture capture) {
  switch (capture) {
    case StepCapture::Auto: return "auto";
    case StepCapture::On: return "on";
    case StepCapture::Off: return "off";
  }
  return "?";
}

Trainer::Trainer(Model& model, Optimizer& optimizer, TrainingData data, TrainerOptions options)
    : model_(model), optimizer_(optimizer), data_(std::move(data)), options_(options) {
  SGNN_CHECK(options.epochs >= 1, "Trainer: epochs must be at least 1, got ", options.epochs);
  SGNN_CHECK(options.patience >= 0, "Trainer: patience must be non-negative, got ", options.patience);
  check_data(data_, model_);
  check_compute_copies(model_, optimizer_);
  capture_enabled_ = resolve_step_capture(options.capture_step, data_.features.device());
  if (model_.forward_rows_is_cheaper()) {
    // Once, on the host; the labels' values are checked by the loss, as on the other path.
    const std::vector<int32_t> labels = data_.labels.to(Device::cpu()).to_vector<int32_t>();
    const std::vector<int32_t> rows = data_.train_index.to(Device::cpu()).to_vector<int32_t>();
    std::vector<int32_t> picked(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      SGNN_CHECK(rows[i] >= 0 && static_cast<std::size_t>(rows[i]) < labels.size(), "Trainer: train_index[", i,
                 "] = ", rows[i], " is not a node of the ", labels.size(), " in the features");
      picked[i] = labels[static_cast<std::size_t>(rows[i])];
    }
    train_labels_ = Tensor::from_vector(picked, {static_cast<int64_t>(picked.size())}).to(data_.labels.device());
  }
}

Tensor Trainer::training_loss() {
  if (train_labels_.defined()) {
    return ops::cross_entropy(model_.forward_rows(data_.graph, data_.features, data_.train_index), train_labels_);
  }
  return ops::cross_entropy(model_.forward(data_.graph, data_.features), data_.labels, data_.train_index);
}

void Trainer::zero_all_gradients() {
  optimizer_.zero_grad();
  for (Tensor& parameter : model_.parameters()) parameter.zero_grad();
}

std::optional<double> Trainer::captured_train_step() {
  // The per-op checks and the gradient ranges read the device back: eager only.
  if (check_numerics() || recording_gradient_ranges()) return std::nullopt;
  if (captured_step_ == nullptr) {
    if (!capture_enabled_ || capture_failed_ || eager_steps_ == 0) return std::nullopt;
    model_.train();
    // Outside the capture: the eager step's gradients are not graph allocations,
    // and a captured free must only free graph allocations.
    zero_all_gradients();
    try {
      captured_step_ = CapturedStep::capture(
          data_.features.device(),
          [this](CapturedStep& step) {
            const Tensor loss = training_loss();
            loss.backward();
            optimizer_.step();
            step.record_output(0, loss);
            zero_all_gradients();  // freed inside the graph, so nothing made in it outlives it
          },
          [this] { zero_all_gradients(); });
    } catch (const Error& error) {
      capture_failed_ = true;
      const std::string message = error.what();
      std::cerr << "sparsegnn: CUDA Graph capture of the training step failed; training eagerly ("
                << message.substr(0, message.find('\n')) << ")\n";
      return std::nullopt;
    }
  }
  model_.train();
  captured_step_->launch();
  captured_step_->wait();
  return static_cast<double>(captured_step_->output(0));
}

double Trainer::train_step() {
  if (const std::optional<double> loss = captured_train_step()) return *loss;
  ++eager_steps_;
  model_.train();
  optimizer_.zero_grad();
  const Tensor loss = training_loss();
  loss.backward();
  optimizer_.step();
  return loss.item();
}

Evaluation Trainer::evaluate() {
  const bool was_training = model_.is_training();
  model_.eval();
  Evaluation evaluation;
  {
    autograd::NoGradGuard no_grad;
    const Tensor logits = model_.forward(data_.graph, data_.features);
    evaluation.train = evaluate_split(logits, data_.labels, data_.train_index);
    evaluation.validation = evaluate_split(logits, data_.labels, data_.valid_index);
    if (data_.test_index.defined()) evaluation.test = evaluate_split(logits, data_.labels, data_.test_index);
  }
  model_.train(was_training);
  return evaluation;
}

EpochRecord Trainer::run_epoch() {
  SGNN_CHECK(!finished(), "Trainer::run_epoch: training is finished (epoch ", state_.epoch, " of ", options_.epochs,
             state_.stopped_early ? ", stopped early" : "", ")");
  const Device device = data_.features.device();
  const Clock::time_point start = Clock::now();
  EpochRecord record;
  const int64_t epoch = state_.epoch + 1;
  try {
    std::optional<LayerNaming> naming;  // check mode: errors name the layer, and here the epoch
    if (check_numerics()) naming.emplace(model_);
    record.train_loss = train_step();  // item() waits for the device
  } catch (const NumericalError& error) {
    throw NumericalError(detail::concat("epoch ", epoch, ": ", error.what()));
  }
  require_finite_loss(record.train_loss, epoch);
  memory::synchronize(device);
  record.epoch_ms = milliseconds_since(start);
  record.epoch = ++state_.epoch;

  const Evaluation evaluation = evaluate();
  record.train_accuracy = evaluation.train.accuracy;
  record.validation_accuracy = evaluation.validation.accuracy;
  record.validation_loss = evaluation.validation.loss;
  state_.history.push_back(record);

  const EpochVerdict verdict = judge_epoch(options_.monitor, record, state_);
  if (verdict.keep) {
    state_.best_epoch = record.epoch;
    remember_best();
  }
  if (verdict.improved) {
    state_.epochs_without_improvement = 0;
  } else {
    ++state_.epochs_without_improvement;
    if (options_.patience > 0 && state_.epochs_without_improvement >= options_.patience) state_.stopped_early = true;
  }
  return record;
}

bool Trainer::finished() const { return state_.stopped_early || state_.epoch >= options_.epochs; }

namespace {

// Copies `values` into `copies` (clones them the first time).
void keep_copies(std::vector<Tensor>& copies, const std::vector<Tensor>& values) {
  if (copies.size() != values.size()) {
    copies.clear();
    for (const Tensor& value : values) copies.push_back(value.detach().clone());
    return;
  }
  for (std::size_t i = 0; i < values.size(); ++i) copy_into(copies[i], values[i]);
}

std::vector<Tensor> buffers_of(const Module& model) {
  std::vector<Tensor> buffers;
  for (const auto& named : model.named_buffers()) buffers.push_back(named.second);
  return buffers;
}

}  // namespace

void Trainer::remember_best() {
  keep_copies(state_.best_parameters, model_.parameters());
  keep_copies(state_.best_buffers, buffers_of(model_));
}

void Trainer::restore_best() {
  std::vector<Tensor> parameters = model_.parameters();
  if (state_.best_parameters.size() != parameters.size()) return;  // no epoch ran
  for (std::size_t i = 0; i < parameters.size(); ++i) copy_into(parameters[i], state_.best_parameters[i]);
  std::vector<Tensor> buffers = buffers_of(model_);
  if (state_.best_buffers.size() == buffers.size()) {
    for (std::size_t i = 0; i < buffers.size(); ++i) copy_into(buffers[i], state_.best_buffers[i]);
  }
  model_.refresh_compute_copies();
}

TrainResult Trainer::fit(const std::function<void(const EpochRecord&)>& on_epoch) {
  const Clock::time_point start = Clock::now();
  while (!finished()) {
    const EpochRecord record = run_epoch();
    if (on_epoch) on_epoch(record);
  }
  if (options_.restore_best) restore_best();
  TrainResult result;
  result.best = evaluate();
  memory::synchronize(data_.features.device());
  result.train_seconds = milliseconds_since(start) / 1e3;
  result.history = state_.history;
  result.best_epoch = state_.best_epoch;
  result.stopped_early = state_.stopped_early;
  std::vector<double> times;
  for (const EpochRecord& record : state_.history) times.push_back(record.epoch_ms);
  result.epoch_ms_median = median(times);
  result.step_captured = step_captured();
  return result;
}

void Trainer::set_state(TrainingState state) {
  const std::vector<Tensor> parameters = model_.parameters();
  SGNN_CHECK(state.best_parameters.empty() || state.best_parameters.size() == parameters.size(),
             "Trainer::set_state: ", state.best_parameters.size(), " best parameters for a model with ",
             parameters.size());
  for (std::size_t i = 0; i < state.best_parameters.size(); ++i) {
    SGNN_CHECK(state.best_parameters[i].shape() == parameters[i].shape(), "Trainer::set_state: best parameter ", i,
               " has shape ", shape_str(state.best_parameters[i].shape()), ", the model's ",
               shape_str(parameters[i].shape()));
    state.best_parameters[i] = state.best_parameters[i].to(parameters[i].device());
  }
  const std::vector<Tensor> buffers = buffers_of(model_);
  SGNN_CHECK(state.best_buffers.empty() || state.best_buffers.size() == buffers.size(), "Trainer::set_state: ",
             state.best_buffers.size(), " best buffers for a model with ", buffers.size());
  for (std::size_t i = 0; i < state.best_buffers.size(); ++i) {
    SGNN_CHECK(state.best_buffers[i].shape() == buffers[i].shape() && state.best_buffers[i].dtype() == buffers[i].dtype(),
               "Trainer::set_state: best buffer ", i, " is ", shape_str(state.best_buffers[i].shape()), " ",
               dtype_name(state.best_buffers[i].dtype()), ", the model's ", shape_str(buffers[i].shape()), " ",
               dtype_name(buffers[i].dtype()));
    state.best_buffers[i] = state.best_buffers[i].to(buffers[i].device());
  }
  SGNN_CHECK(state.epoch >= 0 && state.epoch == static_cast<int64_t>(state.history.size()),
             "Trainer::set_state: epoch ", state.epoch, " with ", state.history.size(), " history records");
  state_ = std::move(state);
}

}  // namespace sgnn::training
