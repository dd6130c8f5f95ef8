#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "graph_io/generators/chung_lu.hpp"
#include "graph_io/generators/power_law_weights.hpp"
#include "tests/graph_io/generator_checks.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;

TEST_CASE("power-law weights: the asked mean, the cap, and the exponent's slope between uncapped nodes") {
  const std::vector<double> w = power_law_weights(10000, 2.5, 20.0, 300.0);
  double sum = 0;
  for (const double x : w) sum += x;
  CHECK(sum / 10000.0 == doctest::Approx(20.0).epsilon(1e-9));
  CHECK(w.front() == 300.0);
  CHECK(std::is_sorted(w.rbegin(), w.rend()));
  // Uncapped nodes: w ∝ (i + 1)^(-1 / (γ - 1)) = (i + 1)^(-2/3).
  CHECK(std::log(w[999] / w[99]) / std::log(1000.0 / 100.0) == doctest::Approx(-2.0 / 3.0).epsilon(1e-9));
  const std::vector<double> uncapped = power_law_weights(10000, 3.0, 20.0, 0.0);
  CHECK(uncapped.front() > 300.0);
  CHECK(std::log(uncapped[1] / uncapped[0]) / std::log(2.0) == doctest::Approx(-0.5).epsilon(1e-9));
}

TEST_CASE("Chung-Lu: edge count, determinism at any thread count, and the asked degree exponent at both ends") {
  for (const double exponent : {2.1, 2.5, 3.0}) {
    CAPTURE(exponent);
    ChungLuOptions options;
    options.num_nodes = 20000;
    options.average_degree = 20;
    options.exponent = exponent;
    options.seed = 4;
    const EdgeList edges = generate_chung_lu(options);
    edges.validate();
    CHECK(edges.num_edges() == 200000);
    sgnn::testing::check_thread_independent([&] { return generate_chung_lu(options); });
    // Both ends are drawn by weight: each end's counts alone follow the law.
    CHECK(sgnn::testing::fitted_degree_exponent(sgnn::testing::end_counts(edges, true, false), 10, 2000) ==
          doctest::Approx(exponent).epsilon(0.1 / exponent));
    CHECK(sgnn::testing::fitted_degree_exponent(sgnn::testing::end_counts(edges, false, true), 10, 2000) ==
          doctest::Approx(exponent).epsilon(0.1 / exponent));
  }
}

TEST_CASE("Chung-Lu: ids are shuffled, the seed matters, and the cap bounds the hubs") {
  ChungLuOptions options;
  options.num_nodes = 5000;
  options.average_degree = 10;
  options.exponent = 2.1;
  options.max_degree = 60;
  const EdgeList edges = generate_chung_lu(options);
  const std::vector<int64_t> degree = sgnn::testing::end_counts(edges, true, true);
  const auto hub = std::max_element(degree.begin(), degree.end());
  // The expected degree of a capped node is 60; Poisson spread stays well under 60 + 6·sqrt(60).
  CHECK(*hub <= 60 + 47);
  CHECK(*hub >= 40);
  // Weight rank 0 is not simply node 0: the ten largest degrees are spread over the ids.
  std::vector<int64_t> ids(degree.size());
  for (std::size_t v = 0; v < ids.size(); ++v) ids[v] = static_cast<int64_t>(v);
  std::partial_sort(ids.begin(), ids.begin() + 10, ids.end(), [&](int64_t a, int64_t b) {
    return degree[static_cast<std::size_t>(a)] > degree[static_cast<std::size_t>(b)];
  });
  CHECK(*std::max_element(ids.begin(), ids.begin() + 10) > 100);
  ChungLuOptions other = options;
  other.seed = 1;
  CHECK_FALSE(sgnn::testing::same_edges(generate_chung_lu(other), edges));
}

TEST_CASE("Chung-Lu refuses bad options") {
  const auto refuses = [](ChungLuOptions options, const char* why) {
    CAPTURE(why);
    CHECK_THROWS_AS(generate_chung_lu(options), InvalidArgument);
  };
  ChungLuOptions good;
  ChungLuOptions bad = good;
  bad.num_nodes = 0;
  refuses(bad, "no nodes");
  bad = good;
  bad.exponent = 2.0;
  refuses(bad, "exponent 2: no finite mean");
  bad.exponent = std::numeric_limits<double>::quiet_NaN();
  refuses(bad, "exponent NaN");
  bad = good;
  bad.average_degree = 0;
  refuses(bad, "no edges asked");
  bad = good;
  bad.max_degree = 5;
  refuses(bad, "a cap below the average degree");
  bad = good;
  bad.max_degree = 1000;
  refuses(bad, "a cap above the other nodes");
  CHECK_THROWS_WITH_AS(generate_chung_lu([] {
                         ChungLuOptions o;
                         o.exponent = 1.5;
                         return o;
                       }()),
                       doctest::Contains("exponent 1.5 must be > 2"), InvalidArgument);
}
