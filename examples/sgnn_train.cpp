// sgnn_train: node classification with any registered model (see --help;
// --list-models lists them with their flags).
//   sgnn_train --model gcn --dataset cora                  # the model's own settings, CPU
//   sgnn_train --model gat --dataset citeseer --device cuda --runs 10 --out gat.json
//   sgnn_train --model appnp --dataset cora --checkpoint appnp.ckpt --predictions appnp.csv
#include "examples/training_cli.hpp"

int main(int argc, char** argv) { return sgnn::examples::training_main("sgnn_train", "", argc, argv); }
