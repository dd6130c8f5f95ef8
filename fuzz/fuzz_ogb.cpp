// libFuzzer target: read_ogb_dataset on a small valid dataset in which one
// file (picked by the first byte) holds the fuzzer's bytes. Only sgnn::Error
// may escape, and a dataset that is returned is consistent.
#include "core/error.hpp"
#include "fuzz/fuzz_input_file.hpp"
#include "graph_io/readers/ogb_reader.hpp"

namespace {

struct GoodFile {
  const char* name;
  const char* text;
};

constexpr GoodFile kFiles[] = {
    {"raw/num-node-list.csv", "4\n"},      {"raw/num-edge-list.csv", "5\n"},
    {"raw/edge.csv", "0,1\n1,0\n1,2\n2,3\n3,0\n"}, {"raw/node-feat.csv", "1,0,0.5\n0,1,2\n-1.5,0,0\n0,0,1e-3\n"},
    {"raw/node-label.csv", "0\n2\n1\n2\n"}, {"raw/split/train.csv", "0\n1\n"},
    {"raw/split/valid.csv", "2\n"},         {"raw/split/test.csv", "3\n"}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  constexpr std::size_t kCount = sizeof(kFiles) / sizeof(kFiles[0]);
  const std::size_t target = data[0] % kCount;
  const auto folder = sgnn::fuzz::scratch_folder() / "ogb";
  for (std::size_t f = 0; f < kCount; ++f) {
    if (f == target) sgnn::fuzz::write_file(folder / kFiles[f].name, data + 1, size - 1);
    else sgnn::fuzz::write_file(folder / kFiles[f].name, std::string(kFiles[f].text));
  }
  try {
    const sgnn::graph_io::Dataset d = sgnn::graph_io::read_ogb_dataset(folder);
    d.edges.validate();
    if (d.features.defined() && d.features.size(0) != d.num_nodes()) std::abort();
    if (d.labels.defined() && d.labels.numel() != d.num_nodes()) std::abort();
  } catch (const sgnn::Error&) {
  }
  return 0;
}
