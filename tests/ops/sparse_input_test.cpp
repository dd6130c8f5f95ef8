#include <doctest/doctest.h>

#include <cstring>

#include "core/autograd.hpp"
#include "core/generator.hpp"
#include "core/sparse_rows.hpp"
#include "ops/dropout.hpp"
#include "ops/matmul.hpp"
#include "ops/reduce.hpp"
#include "ops/sparse_input.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// [rows, cols] with about `fraction` of its entries non-zero (negative ones too), row 1 and column 2 empty.
Tensor sparse_matrix(int64_t rows, int64_t cols, double fraction, uint64_t seed) {
  const Tensor noise = random_tensor({rows, cols}, seed, 0.0, 1.0);
  const Tensor values = random_tensor({rows, cols}, seed + 1);
  Tensor x = Tensor::zeros({rows, cols});
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t i = r * cols + c;
      if (r != 1 && c != 2 && static_cast<double>(noise.data<float>()[i]) < fraction) x.data<float>()[i] = values.data<float>()[i];
    }
  }
  return x;
}

}  // namespace

TEST_CASE("make_sparse_rows keeps every non-zero with its position, a transpose that checks, and refuses dense x") {
  const Tensor x = sparse_matrix(70, 130, 0.05, 1);
  const std::shared_ptr<const SparseRows> rows = make_sparse_rows(x, 0.25);
  REQUIRE(rows);
  const Adjacency& matrix = rows->pattern->matrix();
  matrix.validate();
  CHECK(matrix.num_rows() == 70);
  CHECK(matrix.num_cols() == 130);
  int64_t nonzero = 0;
  for (int64_t i = 0; i < x.numel(); ++i) nonzero += x.data<float>()[i] != 0.0f;
  REQUIRE(rows->pattern->nnz() == nonzero);
  CHECK(nonzero > 200);
  const int32_t* indptr = matrix.csr.indptr.data<int32_t>();
  const int32_t* indices = matrix.csr.indices.data<int32_t>();
  const int64_t* positions = rows->pattern->positions().data<int64_t>();
  for (int64_t r = 0; r < 70; ++r) {
    for (int32_t k = indptr[r]; k < indptr[r + 1]; ++k) {
      CHECK(positions[k] == r * 130 + indices[k]);
      CHECK(rows->values.data<float>()[k] == x.data<float>()[positions[k]]);
    }
  }
  CHECK(indptr[2] == indptr[1]);  // the empty row
  CHECK_FALSE(make_sparse_rows(random_tensor({40, 50}, 3), 0.25));  // every entry non-zero
  CHECK_FALSE(make_sparse_rows(Tensor::zeros({0, 5}), 0.25));
  CHECK_THROWS_AS(make_sparse_rows(Tensor::zeros({4}), 0.25), InvalidArgument);
  CHECK_THROWS_AS(make_sparse_rows(Tensor::zeros({4, 4}, DType::Int32), 0.25), InvalidArgument);
}

TEST_CASE("matmul_weight over x's non-zeros gives the dense product and weight gradient, also after dropout") {
  Tensor x = sparse_matrix(90, 210, 0.03, 4);
  const std::shared_ptr<const SparseRows> rows = make_sparse_rows(x, 0.25);
  REQUIRE(rows);
  x.set_sparse_rows(rows);
  // The CPU never times (its dense product skips zeros itself): record the choice, as a measurement would.
  const int64_t width = 24;
  CHECK_FALSE(ops::sparse_product_chosen(x, random_tensor({210, width}, 5)));
  rows->pattern->record_sparse_product_faster(width, true);

  Generator generator(7);
  const Tensor dropped = ops::dropout(x, 0.4f, true, generator);
  REQUIRE(dropped.sparse_rows());
  const SparseRows& masked = *dropped.sparse_rows();
  CHECK(masked.pattern == rows->pattern);
  int64_t zeroed = 0;
  for (int64_t k = 0; k < masked.pattern->nnz(); ++k) {
    const float dense = dropped.data<float>()[masked.pattern->positions().data<int64_t>()[k]];
    CHECK(std::memcmp(&dense, &masked.values.data<float>()[k], sizeof(float)) == 0);  // the same bits
    zeroed += masked.values.data<float>()[k] == 0.0f;
  }
  CHECK(zeroed > masked.pattern->nnz() / 5);  // the mask did drop entries
  CHECK(zeroed < masked.pattern->nnz() * 3 / 5);

  for (const Tensor& input : {x, dropped}) {
    Tensor weight = random_tensor({210, width}, 8);
    weight.set_requires_grad(true);
    REQUIRE(ops::sparse_product_chosen(input, weight));
    const Tensor sparse = ops::matmul_weight(input, weight, Tensor());
    ops::sum(sparse).backward();  // d(Σ out)/dW = inputᵀ·1
    const Tensor weight_gradient = weight.grad();
    Tensor plain_input = input.clone();  // no view: the dense product
    CHECK_FALSE(plain_input.sparse_rows());
    Tensor dense_weight = weight.detach().clone();
    dense_weight.set_requires_grad(true);
    const Tensor dense = ops::matmul_weight(plain_input, dense_weight, Tensor());
    ops::sum(dense).backward();
    CHECK(relative_error(sparse, dense) < 1e-5);
    CHECK(relative_error(weight_gradient, dense_weight.grad()) < 1e-5);
  }

  // An x that needs its own gradient takes the dense product (the sparse one has no gradient for x).
  Tensor leaf = x.clone();
  leaf.set_sparse_rows(rows);
  leaf.set_requires_grad(true);
  CHECK_FALSE(ops::sparse_product_chosen(leaf, random_tensor({210, width}, 9)));
  // Another width has no recorded choice; a weight of the wrong height is refused by the dense product's checks.
  CHECK_FALSE(ops::sparse_product_chosen(x, random_tensor({210, width + 1}, 10)));
  CHECK_THROWS_AS(ops::matmul_weight(x, random_tensor({209, width}, 11), Tensor()), InvalidArgument);
  CHECK_THROWS_AS(ops::sparse_rows_product(*rows, random_tensor({209, width}, 11)), InvalidArgument);
}
