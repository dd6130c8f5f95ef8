// train_gat: GAT node classification from the command line (see --help).
//   train_gat --dataset cora                       # the paper's settings, CPU
//   train_gat --dataset citeseer --device cuda --runs 10 --out gat.json
#include "examples/training_cli.hpp"

int main(int argc, char** argv) { return sgnn::examples::training_main(sgnn::training::ModelKind::Gat, argc, argv); }
