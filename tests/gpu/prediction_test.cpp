// sgnn_predict's path on the GPU: a checkpoint trained on the CPU predicts on
// CUDA what it predicts on the CPU (probabilities within FP32 summation-order
// error, embeddings too), and the files have the same layout.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "tests/graph_io/temp_files.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/synthetic_datasets.hpp"
#include "tests/support/testing.hpp"
#include "training/experiment.hpp"
#include "training/output/npy_header.hpp"
#include "training/prediction_run.hpp"
#include "training/output/prediction_writer.hpp"

using namespace sgnn;
using namespace sgnn::training;
using sgnn::testing::TempDir;

namespace {

// Values of a written .npy structured array after its header: every record's
// floats (the id and class fields left out), for comparison.
std::vector<float> record_floats(const std::filesystem::path& file, std::size_t header, std::size_t record_bytes,
                                 std::size_t float_offset) {
  const std::string bytes = sgnn::testing::read_bytes(file);
  std::vector<float> values;
  for (std::size_t record = header; record + record_bytes <= bytes.size(); record += record_bytes) {
    for (std::size_t at = record + float_offset; at < record + record_bytes; at += sizeof(float)) {
      float value = 0;
      std::memcpy(&value, bytes.data() + at, sizeof value);
      values.push_back(value);
    }
  }
  return values;
}

}  // namespace

TEST_CASE("a CPU-trained checkpoint predicts on CUDA what it predicts on the CPU (GCN and GAT)") {
  TempDir dir;
  const std::string dataset = sgnn::testing::write_symmetric_synthetic(dir.path(), "sbm", 500, 3000, 16, 9);
  for (const std::string kind : {"gcn", "gat"}) {
    CAPTURE(kind);
    ExperimentOptions training;
    training.model = kind;
    training.dataset = dataset;
    training.hyperparameters = {{"epochs", "10"}, {"patience", "0"}};
    training.checkpoint = (dir / "model.ckpt").string();
    run_experiment(training);
    PredictionOptions options;
    options.checkpoint = training.checkpoint;
    options.dataset = dataset;
    options.predictions = (dir / "cpu.npy").string();
    options.embeddings = (dir / "cpu-embeddings.npy").string();
    const PredictionReport on_cpu = run_prediction(options);
    options.device = "cuda";
    options.predictions = (dir / "gpu.npy").string();
    options.embeddings = (dir / "gpu-embeddings.npy").string();
    const PredictionReport on_gpu = run_prediction(options);
    CHECK(on_gpu.device == "cuda:0");
    REQUIRE(on_cpu.test_accuracy.has_value());
    REQUIRE(on_gpu.test_accuracy.has_value());
    CHECK(std::abs(*on_gpu.test_accuracy - *on_cpu.test_accuracy) <= 0.01);

    const int64_t classes = on_cpu.description.classes;
    const std::string header =
        npy_header(detail::concat("[('node', '<i8'), ('class', '<i4'), ('probabilities', '<f4', (", classes, ",))]"),
                   500);
    const std::size_t record = 8 + 4 + 4 * static_cast<std::size_t>(classes);
    const std::vector<float> cpu = record_floats(dir / "cpu.npy", header.size(), record, 12);
    const std::vector<float> gpu = record_floats(dir / "gpu.npy", header.size(), record, 12);
    REQUIRE(cpu.size() == 500 * static_cast<std::size_t>(classes));
    const Tensor cpu_probabilities = Tensor::from_vector(cpu, {static_cast<int64_t>(cpu.size())});
    // float32 on both, summed in other orders (SpMM segments, cuBLAS): measured 1.2e-4 on the H100.
    CHECK(sgnn::testing::relative_error(Tensor::from_vector(gpu, {static_cast<int64_t>(gpu.size())}),
                                        cpu_probabilities) < 2e-3);
    CHECK(sgnn::testing::read_bytes(dir / "gpu.npy").substr(0, header.size()) == header);

    const ModelDescription& d = on_cpu.description;  // the hidden layer's width: GAT's heads concatenated
    const int64_t width = d.integer("hidden") * (kind == "gat" ? d.integer("heads") : 1);
    const std::string embedding_header =
        npy_header(detail::concat("[('node', '<i8'), ('embedding', '<f4', (", width, ",))]"), 500);
    const std::size_t embedding_record = 8 + 4 * static_cast<std::size_t>(width);
    const std::vector<float> cpu_hidden =
        record_floats(dir / "cpu-embeddings.npy", embedding_header.size(), embedding_record, 8);
    const std::vector<float> gpu_hidden =
        record_floats(dir / "gpu-embeddings.npy", embedding_header.size(), embedding_record, 8);
    CHECK(sgnn::testing::relative_error(Tensor::from_vector(gpu_hidden, {static_cast<int64_t>(gpu_hidden.size())}),
                                        Tensor::from_vector(cpu_hidden, {static_cast<int64_t>(cpu_hidden.size())})) <
          2e-3);  // measured 5e-4 on the H100
  }
}
