// A model with both normalisation layers for the tiny task
// (tests/support/training_task.hpp): Linear(features, 16) → BatchNorm1d(16)
// → ReLU → Dropout(0.3) → Linear(16, classes) → LayerNorm(classes), of kind
// "normalized", built by hand (no description).
#pragma once

#include <memory>

#include "tests/support/training_task.hpp"

namespace sgnn::testing {

std::shared_ptr<training::Model> normalized_model(const TinyTask& task, Generator& generator);

}  // namespace sgnn::testing
