// train_gat: sgnn_train --model gat under its own name (see --help).
//   train_gat --dataset cora                       # the paper's settings, CPU
//   train_gat --dataset citeseer --device cuda --runs 10 --out gat.json
#include "examples/training_cli.hpp"

int main(int argc, char** argv) { return sgnn::examples::training_main("train_gat", "gat", argc, argv); }
