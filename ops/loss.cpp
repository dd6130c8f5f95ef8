#include "ops/loss.hpp"

#include "core/autograd.hpp"
#include "ops/loss_backend.hpp"
#include "ops/reduce_backend.hpp"

namespace sgnn::ops {

namespace {

// Shapes, dtypes and devices; on the CPU also the label and index values.
// Returns the number of selected rows M.
int64_t check_loss_arguments(const char* op, const char* input_name, const Tensor& input, const Tensor& labels,
                             const Tensor& index) {
  check_floating(input, op, input_name);
  check_dim(input, 2, op, input_name);
  check_dtype(labels, DType::Int32, op, "labels");
  check_dim(labels, 1, op, "labels");
  check_same_device(input, labels, op);
  const int64_t rows = input.size(0);
  const int64_t classes = input.size(1);
  SGNN_CHECK(labels.size(0) == rows, op, ": ", rows, " rows of ", input_name, " but ", labels.size(0), " labels");
  SGNN_CHECK(classes > 0, op, ": ", input_name, " has no classes (shape ", shape_str(input.shape()), ")");
  int64_t selected = rows;
  if (index.defined()) {
    check_dtype(index, DType::Int32, op, "index");
    check_dim(index, 1, op, "index");
    check_same_device(input, index, op);
    selected = index.size(0);
  }
  SGNN_CHECK(selected > 0, op, ": no rows selected (the mean over zero rows is undefined)");
  if (input.device().is_cpu()) {
    // Only the selected rows' labels matter: unlabeled nodes (label −1) may sit outside the index.
    const int32_t* label = labels.data<int32_t>();
    const int32_t* rows_selected = index.defined() ? index.data<int32_t>() : nullptr;
    for (int64_t e = 0; e < selected; ++e) {
      const int64_t r = rows_selected != nullptr ? rows_selected[e] : e;
      SGNN_CHECK(r >= 0 && r < rows, op, ": index[", e, "] = ", r, " out of range [0, ", rows, ")");
      SGNN_CHECK(label[r] >= 0 && label[r] < classes, op, ": label ", label[r], " of row ", r,
                 " out of range [0, ", classes, ")");
    }
  }
  return selected;
}

Tensor loss(const char* op, LossKind kind, const Tensor& input, const Tensor& labels, const Tensor& index) {
  const int64_t selected =
      check_loss_arguments(op, kind == LossKind::Nll ? "log_probabilities" : "logits", input, labels, index);
  const float inverse_count = static_cast<float>(1.0 / static_cast<double>(selected));
  Tensor per_row = Tensor::empty({selected}, DType::Float32, input.device());
  SGNN_DISPATCH(input.device(), loss_per_row, kind, input, labels, index, per_row);
  Tensor out = Tensor::empty({}, DType::Float32, input.device());
  SGNN_DISPATCH(input.device(), sum_axis, per_row, AxisLayout{1, selected, 1}, inverse_count, out);
  if (autograd::needs_recording({input})) {
    autograd::record(op, {input}, out,
                     [kind, inverse_count, saved = input.detach(), labels = labels.detach(),
                      index = index.detach()](const Tensor& grad,
                                                                                 const autograd::NeedsGrad&) {
                       Tensor grad_input = Tensor::empty_like(saved);
                       SGNN_DISPATCH(saved.device(), loss_backward, kind, saved, labels, index, grad, inverse_count,
                                     grad_input);
                       return std::vector<Tensor>{grad_input};
                     });
  }
  return out;
}

}  // namespace

Tensor nll_loss(const Tensor& log_probabilities, const Tensor& labels, const Tensor& index) {
  return loss("nll_loss", LossKind::Nll, log_probabilities, labels, index);
}

Tensor cross_entropy(const Tensor& logits, const Tensor& labels, const Tensor& index) {
  return loss("cross_entropy", LossKind::CrossEntropy, logits, labels, index);
}

}  // namespace sgnn::ops
