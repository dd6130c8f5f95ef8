#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "training/output/json.hpp"

using namespace sgnn;
using namespace sgnn::training;

TEST_CASE("JsonWriter writes nested objects and arrays with escaping and null for non-finite numbers") {
  JsonWriter json;
  json.begin_object()
      .field("name", "a \"quoted\"\\path\n")
      .field("runs", int64_t{3})
      .field("ok", true)
      .field("nan", std::numeric_limits<double>::quiet_NaN())
      .key("values")
      .begin_array()
      .value(0.5)
      .value(int64_t{-2})
      .begin_object()
      .end_object()
      .end_array()
      .end_object();
  CHECK(json.str() ==
        R"({"name":"a \"quoted\"\\path\n","runs":3,"ok":true,"nan":null,"values":[0.5,-2,{}]})");
}

TEST_CASE("JsonWriter round-trips doubles with 17 significant digits") {
  JsonWriter json;
  json.begin_array().value(0.1).value(1.0 / 3.0).end_array();
  const std::string text = json.str();
  CHECK(std::stod(text.substr(1)) == 0.1);
  CHECK(std::stod(text.substr(text.find(',') + 1)) == 1.0 / 3.0);
}

TEST_CASE("JsonWriter rejects misuse") {
  JsonWriter missing_key;
  missing_key.begin_object();
  CHECK_THROWS_WITH_AS(missing_key.value(1.0), doctest::Contains("needs a key"), InvalidArgument);
  JsonWriter open;
  open.begin_array();
  CHECK_THROWS_WITH_AS(open.str(), doctest::Contains("incomplete"), InvalidArgument);
  CHECK_THROWS_AS(open.end_object(), InvalidArgument);
  JsonWriter key_in_array;
  key_in_array.begin_array();
  CHECK_THROWS_AS(key_in_array.key("x"), InvalidArgument);
}
