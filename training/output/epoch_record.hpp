// EpochRecord: what one training epoch measured. Shared by the trainer, the
// progress line, the SVG plot and the JSON output.
#pragma once

#include <cstdint>

namespace sgnn::training {

struct EpochRecord {
  int64_t epoch = 0;              // 1-based
  double train_loss = 0;          // the loss the optimizer stepped on (with dropout)
  double train_accuracy = 0;      // evaluation mode (no dropout), in [0, 1]
  double validation_loss = 0;     // evaluation mode
  double validation_accuracy = 0;
  double epoch_ms = 0;            // wall time of the training step (forward, backward, optimizer)
};

}  // namespace sgnn::training
