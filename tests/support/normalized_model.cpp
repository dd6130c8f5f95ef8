#include "tests/support/normalized_model.hpp"

#include "training/nn/linear.hpp"
#include "training/nn/normalization_layers.hpp"

namespace sgnn::testing {

std::shared_ptr<training::Model> normalized_model(const TinyTask& task, Generator& generator) {
  auto layers = std::make_shared<training::Sequential>();
  layers->append(std::make_shared<training::Linear>(task.features, 16, generator));
  layers->append(std::make_shared<training::BatchNorm1d>(16));
  layers->append(std::make_shared<training::Relu>());
  layers->append(std::make_shared<training::Dropout>(0.3f, generator));
  layers->append(std::make_shared<training::Linear>(16, task.classes, generator));
  layers->append(std::make_shared<training::LayerNorm>(task.classes));
  return std::make_shared<training::Model>("normalized", layers, std::vector<std::string>{});
}

}  // namespace sgnn::testing
