// Files of a trained model's outputs, one line (record) per node: its id as
// in the dataset, then the predicted class and the class probabilities
// (predictions) or the last hidden layer (embeddings). Layouts:
// docs/predictions.md.
//
// The format follows the name: "*.npy" is a NumPy array (training/output/npy_header.hpp),
// anything else CSV.
//   CSV predictions   header "node,class,p0,...,p<C-1>", then one row per node
//   CSV embeddings    header "node,e0,...,e<H-1>"
//   (floats in shortest round-trip form: parsed as float32 they give the
//   computed values bit for bit)
//   NPY predictions   1-D structured array, one record per node:
//                     [('node', '<i8'), ('class', '<i4'), ('probabilities', '<f4', (C,))]
//   NPY embeddings    [('node', '<i8'), ('embedding', '<f4', (H,))]
// Files are written atomically (graph_io/atomic_file.hpp): on any error the
// old file, if any, stays and no partial file is left. IoError(file, 0,
// reason) when the file cannot be written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace sgnn::training {

// Which rows of the model's output go to a file, in file order, and the id
// each is written with.
struct OutputRows {
  std::vector<int64_t> rows;  // row of the model's output (the graph's node order)
  std::vector<int64_t> ids;   // the node's id in the dataset
};

// For a graph of `num_nodes` whose node i is the dataset's node
// node_order[i] (host int32 [num_nodes]; undefined: i, no reordering): the
// dataset ids `ids` in their order, or every node by ascending id when `ids`
// is empty. InvalidArgument for an id outside [0, num_nodes).
OutputRows output_rows(int64_t num_nodes, const Tensor& node_order, const std::vector<int32_t>& ids = {});

// probabilities: [N, C] float32 (any device); classes: host int32 [N], the
// predicted class of each row (training::predict gives both).
void write_predictions(const std::filesystem::path& file, const Tensor& probabilities, const Tensor& classes,
                       const OutputRows& rows);
void write_embeddings(const std::filesystem::path& file, const Tensor& embeddings, const OutputRows& rows);

// Refuses, before any work, an output path whose folder does not exist or
// that names a folder: IoError(file, 0, reason), `flag` naming the option.
void require_output_path(const std::filesystem::path& file, const std::string& flag);

}  // namespace sgnn::training
