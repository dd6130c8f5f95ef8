// train_gcn: sgnn_train --model gcn under its own name (see --help).
//   train_gcn --dataset cora                       # the paper's settings, CPU
//   train_gcn --dataset cora --device cuda --runs 10 --out gcn.json --plot gcn.svg
#include "examples/training_cli.hpp"

int main(int argc, char** argv) { return sgnn::examples::training_main("train_gcn", "gcn", argc, argv); }
