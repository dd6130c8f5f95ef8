#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "training/output/svg_plot.hpp"
#include "tests/training/svg_checker.hpp"

using namespace sgnn;
using namespace sgnn::training;

namespace {

bool well_formed(const std::string& xml, std::string& problem) { return testing::well_formed_svg(xml, problem); }

std::vector<EpochRecord> records(int64_t count) {
  std::vector<EpochRecord> out;
  for (int64_t epoch = 1; epoch <= count; ++epoch) {
    EpochRecord r;
    r.epoch = epoch;
    r.train_loss = 2.0 / static_cast<double>(epoch);
    r.validation_loss = 2.5 / static_cast<double>(epoch);
    r.train_accuracy = 1.0 - 1.0 / static_cast<double>(epoch + 1);
    r.validation_accuracy = 0.8 - 0.5 / static_cast<double>(epoch + 1);
    out.push_back(r);
  }
  return out;
}

std::vector<std::size_t> points_per_polyline(const std::string& svg) {
  std::vector<std::size_t> counts;
  const std::regex polyline("<polyline[^>]*points=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), polyline); it != std::sregex_iterator(); ++it) {
    const std::string points = (*it)[1];
    counts.push_back(points.empty() ? 0 : static_cast<std::size_t>(std::count(points.begin(), points.end(), ' ')) + 1);
  }
  return counts;
}

}  // namespace

TEST_CASE("training curves SVG is well-formed with four series of one point per epoch") {
  const std::string svg = training_curves_svg(records(37), "GCN on <cora> & friends");
  std::string problem;
  CHECK_MESSAGE(well_formed(svg, problem), problem);
  CHECK(points_per_polyline(svg) == std::vector<std::size_t>{37, 37, 37, 37});
  CHECK(svg.find("GCN on &lt;cora&gt; &amp; friends") != std::string::npos);
  CHECK(svg.find("validation accuracy") != std::string::npos);
}

TEST_CASE("non-finite values are left out of their series only; one epoch still plots") {
  auto data = records(10);
  data[4].train_loss = std::numeric_limits<double>::quiet_NaN();
  CHECK(points_per_polyline(training_curves_svg(data, "t")) == std::vector<std::size_t>{9, 10, 10, 10});
  const std::string single = training_curves_svg(records(1), "t");
  std::string problem;
  CHECK_MESSAGE(well_formed(single, problem), problem);
  CHECK(single.find("nan") == std::string::npos);
  CHECK(points_per_polyline(single) == std::vector<std::size_t>{1, 1, 1, 1});
}

TEST_CASE("the well-formedness check catches broken markup") {
  std::string problem;
  CHECK_FALSE(well_formed("<svg><g></svg>", problem));
  CHECK_FALSE(well_formed("<svg>a & b</svg>", problem));
  CHECK_FALSE(well_formed("<svg></svg><svg></svg>", problem));
  CHECK_FALSE(well_formed("<g></g>", problem));
  CHECK_FALSE(well_formed("<svg></svg>tail", problem));
  CHECK(well_formed("<?xml version=\"1.0\"?>\n<svg><g a=\"1\"/></svg>\n", problem));
}

TEST_CASE("an empty history or an unwritable path gives a clear error") {
  CHECK_THROWS_WITH_AS(training_curves_svg({}, "t"), doctest::Contains("no epochs"), InvalidArgument);
  CHECK_THROWS_AS(write_training_curves_svg("/nonexistent-dir/x/curves.svg", records(2), "t"), IoError);
}
