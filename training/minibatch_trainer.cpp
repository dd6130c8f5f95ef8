#include "training/minibatch_trainer.hpp"

#include <chrono>

#include "core/autograd.hpp"
#include "core/memory.hpp"
#include "ops/elementwise.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/loss.hpp"
#include "sampling/batch_pipeline.hpp"

namespace sgnn::training {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Tensor concatenated(const std::vector<const Tensor*>& parts) {
  std::vector<int32_t> ids;
  for (const Tensor* part : parts) {
    if (!part->defined()) continue;
    const int32_t* data = part->data<int32_t>();
    ids.insert(ids.end(), data, data + part->numel());
  }
  return Tensor::from_vector(ids, {static_cast<int64_t>(ids.size())});
}

Tensor range_index(int64_t begin, int64_t end, Device device) {
  std::vector<int32_t> ids;
  for (int64_t i = begin; i < end; ++i) ids.push_back(static_cast<int32_t>(i));
  return Tensor::from_vector(ids, {end - begin}, device);
}

void check_split(const Tensor& split, const char* name, bool required) {
  if (!split.defined()) {
    SGNN_CHECK(!required, "MinibatchTrainer: the ", name, " split is required");
    return;
  }
  check_dtype(split, DType::Int32, "MinibatchTrainer", name);
  SGNN_CHECK(split.device().is_cpu() && split.dim() == 1, "MinibatchTrainer: the ", name,
             " split must be a host int32 [M] tensor");
  SGNN_CHECK(!required || split.numel() > 0, "MinibatchTrainer: the ", name, " split is empty");
}

}  // namespace

MinibatchTrainer::MinibatchTrainer(BlockModel& model, Optimizer& optimizer, MinibatchData data,
                                   MinibatchTrainerOptions options)
    : model_(model), optimizer_(optimizer), data_(std::move(data)), options_(options) {
  SGNN_CHECK(data_.sampler != nullptr && data_.features != nullptr && data_.labels != nullptr,
             "MinibatchTrainer: a sampler, features and labels are needed");
  check_split(data_.train_index, "train", true);
  check_split(data_.valid_index, "validation", false);
  check_split(data_.test_index, "test", false);
  SGNN_CHECK(options_.epochs >= 1 && options_.batch_size >= 1 && options_.eval_every >= 1 &&
                 options_.pipeline_depth >= 1,
             "MinibatchTrainer: epochs (", options_.epochs, "), batch_size (", options_.batch_size, "), eval_every (",
             options_.eval_every, ") and pipeline_depth (", options_.pipeline_depth, ") must be positive");
  SGNN_CHECK(data_.sampler->num_hops() == model_.num_layers(), "MinibatchTrainer: ", data_.sampler->num_hops(),
             " fanouts for a model of ", model_.num_layers(), " layers (one fanout per layer)");
  SGNN_CHECK(data_.features->row_elements() == model_.in_features(), "MinibatchTrainer: features of width ",
             data_.features->row_elements(), " for a model of ", model_.in_features(), " inputs");
  SGNN_CHECK(data_.features->dtype() == model_.activation_dtype(), "MinibatchTrainer: features gathered as ",
             dtype_name(data_.features->dtype()), " for a model computing in ", dtype_name(model_.activation_dtype()));
  SGNN_CHECK(model_.device() == data_.sampler->graph().device(), "MinibatchTrainer: the model is on ",
             model_.device().str(), ", the sampler on ", data_.sampler->graph().device().str());
}

MinibatchEpochRecord MinibatchTrainer::run_epoch(const std::function<void(const MinibatchProgress&)>& on_progress) {
  const ops::ScopedKernelTuning no_tuning(false);
  const Device device = model_.device();
  ++epoch_;
  MinibatchEpochRecord record;
  record.epoch = epoch_;
  model_.train();
  const Clock::time_point start = Clock::now();
  if (device.is_cuda() && arenas_.empty()) {
    for (int slot = 0; slot < options_.pipeline_depth; ++slot) {
      arenas_.push_back(std::make_shared<sampling::DeviceArena>(device));
    }
  }
  sampling::BatchPipeline pipeline({data_.sampler, data_.features, data_.labels},
                                   sampling::shuffled(data_.train_index, options_.seed, static_cast<uint64_t>(epoch_)),
                                   options_.batch_size, batches_drawn_, options_.pipeline_depth, arenas_);
  batches_drawn_ += static_cast<uint64_t>(pipeline.num_batches());
  Tensor loss_sum = Tensor::zeros({}, DType::Float32, device);
  Clock::time_point last_report = start;
  const auto report = [&](int64_t done) {
    MinibatchProgress progress{epoch_, done, pipeline.num_batches(), record.seeds, seconds_since(start), 0.0};
    progress.mean_loss = loss_sum.item() / static_cast<double>(std::max<int64_t>(done, 1));
    on_progress(progress);
    last_report = Clock::now();
  };
  while (std::optional<sampling::MiniBatch> batch = pipeline.next()) {
    optimizer_.zero_grad();
    const Tensor logits = model_.forward(batch->blocks, batch->inputs);
    const Tensor loss = ops::cross_entropy(logits, batch->labels);
    loss.backward();
    optimizer_.step();
    {
      const autograd::NoGradGuard no_grad;
      loss_sum = ops::add(loss_sum, loss.detach());
    }
    ++record.batches;
    record.seeds += batch->seeds.numel();
    for (const sampling::Block& block : batch->blocks) record.sampled_edges += block.num_edges();
    pipeline.release(*batch);
    if (on_progress && seconds_since(last_report) >= options_.progress_seconds) report(record.batches);
  }
  optimizer_.zero_grad();
  record.stages = pipeline.seconds();
  record.train_loss = loss_sum.item() / static_cast<double>(std::max<int64_t>(record.batches, 1));
  record.train_seconds = seconds_since(start);
  record.seeds_per_second = static_cast<double>(record.seeds) / std::max(record.train_seconds, 1e-9);
  if (on_progress) report(record.batches);
  const bool evaluate_now = options_.evaluate && epoch_ >= options_.eval_from &&
                            (epoch_ - options_.eval_from) % options_.eval_every == 0;
  if (evaluate_now) {
    const Clock::time_point eval_start = Clock::now();
    record.evaluation = evaluate();
    record.evaluated = true;
    record.eval_seconds = seconds_since(eval_start);
  }
  // Recorded here, not in fit(), so that state() is whole after any epoch.
  const MinibatchEpochRecord* best = best_record();
  if (record.evaluated &&
      (best == nullptr || record.evaluation.validation.accuracy > best->evaluation.validation.accuracy)) {
    best_epoch_ = record.epoch;
    remember_best();
  }
  history_.push_back(record);
  return record;
}

Evaluation MinibatchTrainer::evaluate() {
  const Device device = model_.device();
  const Tensor no_split;
  const Tensor& train = options_.evaluate_train ? data_.train_index : no_split;
  const Tensor rows = concatenated({&train, &data_.valid_index, &data_.test_index});
  const Tensor logits = infer_layerwise(model_, data_.sampler->graph(), *data_.features, rows, options_.inference);
  const autograd::NoGradGuard no_grad;
  const Tensor labels = data_.labels->gather(rows.to(device));
  Evaluation evaluation;
  int64_t first = 0;
  const auto split_metrics = [&](const Tensor& split) {
    SplitMetrics metrics;
    if (split.defined() && split.numel() > 0) {
      metrics = evaluate_split(logits, labels, range_index(first, first + split.numel(), device));
      first += split.numel();
    }
    return metrics;
  };
  evaluation.train = split_metrics(train);
  evaluation.validation = split_metrics(data_.valid_index);
  evaluation.test = split_metrics(data_.test_index);
  return evaluation;
}

MinibatchFit MinibatchTrainer::fit(const std::function<void(const MinibatchEpochRecord&)>& on_epoch,
                                   const std::function<void(const MinibatchProgress&)>& on_progress) {
  const Clock::time_point start = Clock::now();
  while (epoch_ < options_.epochs) {
    const MinibatchEpochRecord record = run_epoch(on_progress);
    if (on_epoch) on_epoch(record);
  }
  restore_best();
  memory::synchronize(model_.device());
  MinibatchFit fit;
  fit.history = history_;
  fit.best_epoch = best_epoch_;
  if (const MinibatchEpochRecord* best = best_record()) fit.best = best->evaluation;
  fit.train_seconds = seconds_since(start);
  std::vector<double> times;
  for (const MinibatchEpochRecord& record : fit.history) times.push_back(record.train_seconds * 1e3);
  fit.epoch_seconds_median = median(times) / 1e3;
  return fit;
}

const MinibatchEpochRecord* MinibatchTrainer::best_record() const {
  for (const MinibatchEpochRecord& record : history_) {
    if (record.epoch == best_epoch_) return &record;
  }
  return nullptr;
}

MinibatchTrainerState MinibatchTrainer::state() const {
  MinibatchTrainerState state{epoch_, batches_drawn_, history_, best_epoch_, {}};
  for (const Tensor& parameter : best_parameters_) state.best_parameters.push_back(parameter.to(Device::cpu()));
  return state;
}

void MinibatchTrainer::set_state(MinibatchTrainerState state) {
  SGNN_CHECK(state.epoch >= 0 && static_cast<int64_t>(state.history.size()) == state.epoch,
             "MinibatchTrainer::set_state: ", state.history.size(), " epoch records for ", state.epoch, " epochs done");
  for (std::size_t i = 0; i < state.history.size(); ++i) {
    SGNN_CHECK(state.history[i].epoch == static_cast<int64_t>(i) + 1, "MinibatchTrainer::set_state: record ", i + 1,
               " is of epoch ", state.history[i].epoch);
  }
  const bool best_evaluated = state.best_epoch >= 1 && state.best_epoch <= state.epoch &&
                              state.history[static_cast<std::size_t>(state.best_epoch - 1)].evaluated;
  SGNN_CHECK(state.best_epoch == 0 || best_evaluated, "MinibatchTrainer::set_state: best epoch ", state.best_epoch,
             " is not an evaluated epoch of the ", state.epoch, " done");
  const std::vector<Tensor> parameters = model_.parameters();
  SGNN_CHECK((state.best_epoch == 0 && state.best_parameters.empty()) ||
                 (state.best_epoch > 0 && state.best_parameters.size() == parameters.size()),
             "MinibatchTrainer::set_state: ", state.best_parameters.size(), " best parameters (best epoch ",
             state.best_epoch, ") for a model of ", parameters.size());
  for (std::size_t i = 0; i < state.best_parameters.size(); ++i) {
    SGNN_CHECK(state.best_parameters[i].shape() == parameters[i].shape() &&
                   state.best_parameters[i].dtype() == parameters[i].dtype(),
               "MinibatchTrainer::set_state: best parameter ", i, " is ", shape_str(state.best_parameters[i].shape()),
               " ", dtype_name(state.best_parameters[i].dtype()), ", the model's ", shape_str(parameters[i].shape()),
               " ", dtype_name(parameters[i].dtype()));
  }
  epoch_ = state.epoch;
  batches_drawn_ = state.batches_drawn;
  history_ = std::move(state.history);
  best_epoch_ = state.best_epoch;
  best_parameters_.clear();
  for (const Tensor& parameter : state.best_parameters) best_parameters_.push_back(parameter.to(model_.device()).clone());
}

void MinibatchTrainer::remember_best() {
  const std::vector<Tensor> parameters = model_.parameters();
  if (best_parameters_.size() != parameters.size()) {
    best_parameters_.clear();
    for (const Tensor& parameter : parameters) best_parameters_.push_back(parameter.detach().clone());
    return;
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) copy_into(best_parameters_[i], parameters[i]);
}

void MinibatchTrainer::restore_best() {
  std::vector<Tensor> parameters = model_.parameters();
  if (best_parameters_.size() != parameters.size()) return;  // nothing evaluated
  for (std::size_t i = 0; i < parameters.size(); ++i) copy_into(parameters[i], best_parameters_[i]);
  model_.refresh_compute_copies();
}

}  // namespace sgnn::training
