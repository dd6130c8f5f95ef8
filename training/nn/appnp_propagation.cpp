#include "training/nn/appnp_propagation.hpp"

#include "ops/elementwise.hpp"

namespace sgnn::training {

APPNPPropagation::APPNPPropagation(int64_t steps, float teleport) : steps_(steps), teleport_(teleport) {
  SGNN_CHECK(steps >= 1, "APPNPPropagation: steps (K) must be at least 1, got ", steps);
  SGNN_CHECK(teleport >= 0.0f && teleport <= 1.0f, "APPNPPropagation: teleport (alpha) must be in [0, 1], got ",
             teleport);
}

Tensor APPNPPropagation::forward(const GraphInput& graph, const Tensor& x) {
  check_defined(x, "APPNPPropagation", "x");
  check_floating(x, "APPNPPropagation", "x");
  check_dim(x, 2, "APPNPPropagation", "x");
  SGNN_CHECK(x.size(0) == graph.graph().num_cols(), "APPNPPropagation: x has ", x.size(0), " rows, the graph has ",
             graph.graph().num_cols(), " nodes");
  const Tensor restart = ops::scale(x, teleport_);  // α · z, the same every step
  Tensor h = x;
  for (int64_t step = 0; step < steps_; ++step) h = ops::add(ops::scale(graph.aggregate(h), 1.0f - teleport_), restart);
  return h;
}

}  // namespace sgnn::training
