// A tiny mini-batch run (4-node ring, GraphSAGE 2 -> 3 -> 2 over fanouts
// 2,2, Adam, batches of 2) for the checkpoint fuzz target and its seeds:
// what resume_block_checkpoint needs to receive a file.
#pragma once

#include <memory>

#include "fuzz/checkpoint_fixture.hpp"
#include "graph_io/prepare.hpp"
#include "sampling/feature_store.hpp"
#include "sampling/neighbor_sampler.hpp"
#include "training/block_checkpoint.hpp"
#include "training/minibatch_sage.hpp"

namespace sgnn::fuzz {

struct MinibatchCheckpointFixture {
  MinibatchCheckpointFixture()
      : sampler(std::make_shared<const sampling::SamplingGraph>(ring(), Device::cpu(), sampling::Residence::Device),
                sampler_options()),
        features(ring_features(), Device::cpu(), store_options(DType::Float32)),
        labels(ring_labels(), Device::cpu(), store_options(DType::Int32)),
        generator(1),
        model(config(), generator),
        optimizer(model.parameter_groups(5e-4f)),
        trainer(model, optimizer, data(), trainer_options()) {}

  void resume(const graph_io::SectionFile& contents) {
    training::resume_block_checkpoint(contents, description(), model, optimizer, trainer, generator);
  }
  void save(const std::filesystem::path& file) const {
    training::save_block_checkpoint(file, model, description(), optimizer, trainer.state(), generator);
  }

  sampling::NeighborSampler sampler;
  sampling::FeatureStore features, labels;
  Generator generator;
  training::SageModel model;
  training::Adam optimizer;
  training::MinibatchTrainer trainer;

 private:
  static Csr ring() {
    graph_io::PrepareOptions prepare;
    prepare.symmetrize = true;
    prepare.normalization = graph_io::Normalization::None;
    return graph_io::prepare_adjacency(ring_edges(), prepare).csr;
  }
  static sampling::SamplerOptions sampler_options() {
    sampling::SamplerOptions o;
    o.fanouts = {2, 2};
    return o;
  }
  static sampling::FeatureStoreOptions store_options(DType dtype) {
    sampling::FeatureStoreOptions o;
    o.dtype = dtype;
    return o;
  }
  static training::BlockModelConfig config() {
    return {.in_features = 2, .classes = 2, .hidden = 3, .layers = 2, .dropout = 0.5f};
  }
  static training::ModelDescription description() {
    return training::block_model_description("sage", config(), "mean", false);
  }
  training::MinibatchData data() const {
    training::MinibatchData d;
    d.sampler = &sampler;
    d.features = &features;
    d.labels = &labels;
    d.train_index = ring_train_nodes();
    d.valid_index = ring_valid_nodes();
    return d;
  }
  static training::MinibatchTrainerOptions trainer_options() {
    training::MinibatchTrainerOptions o;
    o.epochs = 4;
    o.batch_size = 2;
    o.evaluate_train = false;
    o.eval_every = 2;
    return o;
  }
};

}  // namespace sgnn::fuzz
