#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "training/nn/init.hpp"
#include "training/nn/module.hpp"

using namespace sgnn;
using namespace sgnn::training;

namespace {

class Leaf : public Module {
 public:
  explicit Leaf(int64_t n) : weight_(Tensor::full({n}, 1.0)), bias_(Tensor::zeros({1})) {
    register_parameter("weight", weight_);
    register_parameter("bias", bias_);
  }
  const Tensor& weight() const { return weight_; }

 private:
  Tensor weight_;
  Tensor bias_;
};

class Tree : public Module {
 public:
  Tree() : scale_(Tensor::full({2, 2}, 3.0)) {
    register_parameter("scale", scale_);
    first = register_module("first", std::make_shared<Leaf>(3));
    second = register_module("second", std::make_shared<Leaf>(5));
  }
  std::shared_ptr<Leaf> first, second;

 private:
  Tensor scale_;
};

}  // namespace

TEST_CASE("named_parameters lists own parameters first, then submodules depth first, with dotted names") {
  Tree tree;
  const auto named = tree.named_parameters();
  REQUIRE(named.size() == 5);
  CHECK(named[0].first == "scale");
  CHECK(named[1].first == "first.weight");
  CHECK(named[2].first == "first.bias");
  CHECK(named[3].first == "second.weight");
  CHECK(named[4].first == "second.bias");
  CHECK(tree.parameter_count() == 4 + 3 + 1 + 5 + 1);
  for (const auto& entry : named) {
    CHECK(entry.second.requires_grad());
    CHECK(entry.second.is_leaf());
  }
  // The registry hands out the layer's own handle: same storage.
  CHECK(named[1].second.shares_storage_with(tree.first->weight()));
}

TEST_CASE("train and eval propagate to every submodule") {
  Tree tree;
  CHECK(tree.is_training());
  tree.eval();
  CHECK_FALSE(tree.is_training());
  CHECK_FALSE(tree.first->is_training());
  CHECK_FALSE(tree.second->is_training());
  tree.train();
  CHECK(tree.second->is_training());
}

TEST_CASE("duplicate or dotted names are rejected with the name in the message") {
  class Bad : public Module {
   public:
    explicit Bad(const char* second_name) : a_(Tensor::zeros({1})), b_(Tensor::zeros({1})) {
      register_parameter("a", a_);
      register_parameter(second_name, b_);
    }
    Tensor a_, b_;
  };
  CHECK_THROWS_WITH_AS(Bad("a"), doctest::Contains("\"a\" is already a parameter"), InvalidArgument);
  CHECK_THROWS_WITH_AS(Bad("x.y"), doctest::Contains("contain no '.'"), InvalidArgument);
}

TEST_CASE("zero_grad clears every gradient and copy_into updates a parameter in place") {
  Tree tree;
  for (Tensor parameter : tree.parameters()) parameter.set_grad(Tensor::full(parameter.shape(), 1.0));
  tree.zero_grad();
  for (const Tensor& parameter : tree.parameters()) CHECK_FALSE(parameter.grad().defined());

  Tensor target = tree.parameters()[1];
  copy_into(target, Tensor::from_vector(std::vector<float>{7, 8, 9}, {3}));
  CHECK(tree.first->weight().to_vector<float>() == std::vector<float>{7, 8, 9});
  CHECK_THROWS_WITH_AS(copy_into(target, Tensor::zeros({4})), doctest::Contains("does not match"), InvalidArgument);
}

TEST_CASE("to(cpu) keeps the handles; device() reports the parameters' device") {
  Tree tree;
  const Tensor before = tree.parameters()[0];
  tree.to(Device::cpu());
  CHECK(tree.parameters()[0].shares_storage_with(before));
  CHECK(tree.device() == Device::cpu());
}

TEST_CASE("glorot_uniform stays within the bound, is deterministic from the seed, and advances the generator") {
  Generator a(42), b(42);
  const Tensor wa = glorot_uniform({30, 20}, 30, 20, a);
  const Tensor wb = glorot_uniform({30, 20}, 30, 20, b);
  CHECK(wa.to_vector<float>() == wb.to_vector<float>());
  CHECK(a.offset() == 150);  // 600 values in blocks of 4
  const double bound = std::sqrt(6.0 / 50.0);
  double sum = 0, max_abs = 0;
  for (float v : wa.to_vector<float>()) {
    sum += static_cast<double>(v);
    max_abs = std::max(max_abs, static_cast<double>(std::abs(v)));
  }
  CHECK(max_abs <= bound);
  CHECK(max_abs > 0.9 * bound);           // spans the range
  CHECK(std::abs(sum / 600.0) < 0.05);    // centred
  const Tensor next = glorot_uniform({30, 20}, 30, 20, a);
  CHECK(next.to_vector<float>() != wa.to_vector<float>());
  CHECK_THROWS_AS(glorot_uniform({3}, 0, 3, a), InvalidArgument);
}
