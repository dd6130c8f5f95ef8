#include "ops/spmm_tile.hpp"

#include <mutex>

namespace sgnn::ops {

namespace {

std::mutex forced_mutex;
std::string forced_tile;

}  // namespace

void force_spmm_tile(const std::string& name) {
  const std::lock_guard<std::mutex> lock(forced_mutex);
  forced_tile = name;
}

std::string forced_spmm_tile() {
  const std::lock_guard<std::mutex> lock(forced_mutex);
  return forced_tile;
}

}  // namespace sgnn::ops
