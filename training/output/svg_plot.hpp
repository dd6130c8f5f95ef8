// Training curves as a standalone SVG (no plotting dependency): two panels,
// loss (train, validation) and accuracy (train, validation) per epoch. Each
// series is one <polyline> with one point per epoch (non-finite values are
// left out of their series), with axes, tick labels and a legend.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "training/output/epoch_record.hpp"
#include "training/output/svg_document.hpp"

namespace sgnn::training {

// `title` is escaped for XML. InvalidArgument when `records` is empty.
std::string training_curves_svg(const std::vector<EpochRecord>& records, const std::string& title);

// Writes training_curves_svg to `path` atomically (write_svg_file: IoError
// when it cannot be written, and then nothing is left there).
void write_training_curves_svg(const std::filesystem::path& path, const std::vector<EpochRecord>& records,
                               const std::string& title);

}  // namespace sgnn::training
