#include <doctest/doctest.h>

#include "core/memory.hpp"
#include "core/tensor.hpp"

using namespace sgnn;

TEST_CASE("tensor creation fills shape, dtype and values") {
  const Tensor zeros = Tensor::zeros({2, 3});
  CHECK(zeros.shape() == Shape{2, 3});
  CHECK(zeros.numel() == 6);
  CHECK(zeros.dtype() == DType::Float32);
  CHECK(zeros.device() == Device::cpu());
  for (float v : zeros.to_vector<float>()) CHECK(v == 0.0f);

  const Tensor sevens = Tensor::full({4}, 7.0, DType::Int64);
  CHECK(sevens.to_vector<int64_t>() == std::vector<int64_t>{7, 7, 7, 7});

  const Tensor values = Tensor::from_vector(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, {3, 2});
  CHECK(values.size(0) == 3);
  CHECK(values.size(-1) == 2);
  CHECK(values.to_vector<int32_t>()[5] == 6);
}

TEST_CASE("tensor copies share storage; clone does not") {
  Tensor a = Tensor::from_vector(std::vector<float>{1, 2, 3}, {3});
  Tensor shared = a;
  Tensor copy = a.clone();
  a.data<float>()[0] = 42.0f;
  CHECK(shared.to_vector<float>()[0] == 42.0f);
  CHECK(copy.to_vector<float>()[0] == 1.0f);
  CHECK(shared.shares_storage_with(a));
  CHECK_FALSE(copy.shares_storage_with(a));
}

TEST_CASE("view and narrow_rows share data without copying") {
  Tensor a = Tensor::from_vector(std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}, {4, 2});
  const Tensor flat = a.view({-1});
  CHECK(flat.shape() == Shape{8});
  const Tensor heads = a.view({4, 1, 2});
  CHECK(heads.shape() == Shape{4, 1, 2});
  const Tensor middle = a.narrow_rows(1, 3);
  CHECK(middle.shape() == Shape{2, 2});
  CHECK(middle.to_vector<float>() == std::vector<float>{2, 3, 4, 5});
  a.data<float>()[2] = -1.0f;
  CHECK(middle.to_vector<float>()[0] == -1.0f);
  CHECK(middle.narrow_rows(1, 2).to_vector<float>() == std::vector<float>{4, 5});
  CHECK(a.narrow_rows(4, 4).numel() == 0);
}

TEST_CASE("bad shapes, dtypes and ranges are refused with a message") {
  const Tensor a = Tensor::zeros({2, 3});
  CHECK_THROWS_AS(a.view({4, 2}), InvalidArgument);
  CHECK_THROWS_AS(a.view({-1, -1}), InvalidArgument);
  CHECK_THROWS_AS(a.narrow_rows(1, 3), InvalidArgument);
  CHECK_THROWS_AS(a.data<int32_t>(), InvalidArgument);
  CHECK_THROWS_AS(a.size(2), InvalidArgument);
  CHECK_THROWS_AS(a.item(), InvalidArgument);
  CHECK_THROWS_AS(Tensor::zeros({-1}), InvalidArgument);
  CHECK_THROWS_AS(Tensor::from_vector(std::vector<float>{1, 2}, {3}), InvalidArgument);
  CHECK_THROWS_WITH_AS(Tensor().to(Device::cpu()), doctest::Contains("undefined"), InvalidArgument);
  CHECK_THROWS_AS(Tensor::zeros({int64_t{1} << 40, int64_t{1} << 40}), InvalidArgument);
}

TEST_CASE("device parsing accepts cpu, cuda and cuda:k only") {
  CHECK(Device::parse("cpu") == Device::cpu());
  CHECK(Device::parse("cuda") == Device::cuda(0));
  CHECK(Device::parse("cuda:3") == Device::cuda(3));
  CHECK(Device::parse("cuda:3").str() == "cuda:3");
  CHECK_THROWS_AS(Device::parse("gpu"), InvalidArgument);
  CHECK_THROWS_AS(Device::parse("cuda:"), InvalidArgument);
  CHECK_THROWS_AS(Device::parse("cuda:-1"), InvalidArgument);
  CHECK_THROWS_AS(Device::parse("cuda:1x"), InvalidArgument);
}

TEST_CASE("a CUDA tensor is refused with a clear message where no GPU is usable") {
  if (cuda_device_count() > 0) return;  // covered by the GPU tier
  CHECK_THROWS_WITH_AS(Tensor::zeros({2}, DType::Float32, Device::cuda()), doctest::Contains("--device cpu"),
                       InvalidArgument);
}

TEST_CASE("memory usage counts live tensors and their peak") {
  memory::reset_peak(Device::cpu());
  const int64_t before = memory::usage(Device::cpu()).current_bytes;
  {
    const Tensor big = Tensor::empty({1000}, DType::Float32);
    CHECK(memory::usage(Device::cpu()).current_bytes == before + 4000);
  }
  CHECK(memory::usage(Device::cpu()).current_bytes == before);
  CHECK(memory::usage(Device::cpu()).peak_bytes >= before + 4000);
}

TEST_CASE("printing shows shape, dtype and elided values") {
  const Tensor a = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {10});
  const std::string text = a.str(4);
  CHECK(text.find("shape=[10]") != std::string::npos);
  CHECK(text.find("float32") != std::string::npos);
  CHECK(text.find("[1, 2, ..., 9, 10]") != std::string::npos);
  const Tensor m = Tensor::from_vector(std::vector<int64_t>{1, 2, 3, 4}, {2, 2});
  CHECK(m.str().find("[[1, 2],\n [3, 4]]") != std::string::npos);
  CHECK(Tensor().str() == "Tensor(undefined)");
}
