#include <doctest/doctest.h>

#include "core/cuda_graph.hpp"
#include "core/generator.hpp"
#include "core/replay_parameters.hpp"

using namespace sgnn;

TEST_CASE("Generator::next_draw outside a recording is next_stream with no offset base") {
  Generator eager(5), drawn(5);
  for (const uint64_t count : {10u, 3u, 4096u}) {
    const PhiloxStream expected = eager.next_stream(count);
    const RandomDraw draw = drawn.next_draw(count);
    CHECK(draw.offset_base == nullptr);
    CHECK(draw.stream.seed == expected.seed);
    CHECK(draw.stream.offset == expected.offset);
  }
  CHECK(drawn.offset() == eager.offset());
}

TEST_CASE("Generator under a recording: relative offsets, host offset held, advanced once per launch") {
  Generator eager(9), recorded(9);
  eager.set_offset(17);
  recorded.set_offset(17);
  ReplayParameters replay(Device::cpu());
  std::vector<RandomDraw> draws;
  {
    ReplayParameters::Recording recording(replay);
    CHECK(ReplayParameters::active() == &replay);
    draws.push_back(recorded.next_draw(10));  // 3 blocks
    draws.push_back(recorded.next_draw(4));   // 1 block
  }
  CHECK(ReplayParameters::active() == nullptr);
  CHECK(recorded.offset() == 17);  // nothing advanced while recording
  CHECK(replay.slots_used() == 1);  // one slot per generator
  REQUIRE(draws[0].offset_base != nullptr);
  CHECK(draws[0].offset_base == draws[1].offset_base);
  CHECK(draws[0].stream.offset == 0);
  CHECK(draws[1].stream.offset == 3);

  for (int launch = 0; launch < 3; ++launch) {
    CAPTURE(launch);
    replay.prepare_launch();
    // Each launch resolves to exactly the streams an eager step draws now.
    const PhiloxStream first = eager.next_stream(10);
    const PhiloxStream second = eager.next_stream(4);
    CHECK(draws[0].resolve().offset == first.offset);
    CHECK(draws[1].resolve().offset == second.offset);
    CHECK(draws[0].resolve().uniform(7) == first.uniform(7));
    CHECK(recorded.offset() == eager.offset());
  }
}

TEST_CASE("Generator reseeded between launches of a recording -> Error at the next launch") {
  Generator generator(3);
  ReplayParameters replay(Device::cpu());
  {
    ReplayParameters::Recording recording(replay);
    (void)generator.next_draw(8);
  }
  replay.prepare_launch();
  generator.reset(4);
  CHECK_THROWS_AS(replay.prepare_launch(), Error);
}

TEST_CASE("ReplayParameters: one slot per owner, refreshes in order, capacity and nesting errors") {
  ReplayParameters replay(Device::cpu());
  std::vector<int> order;
  int owners[ReplayParameters::kCapacity + 1] = {};
  bool created = false;
  ReplayParameters::Slot& first =
      replay.slot(&owners[0], [&](ReplayParameters::Slot& own) { order.push_back(static_cast<int>(*own.host)); },
                  &created);
  CHECK(created);
  *first.host = 1;
  replay.on_launch([&] { order.push_back(2); });
  ReplayParameters::Slot& again = replay.slot(&owners[0], [](ReplayParameters::Slot&) {}, &created);
  CHECK_FALSE(created);
  CHECK(&again == &first);
  CHECK(first.device == first.host);  // on the CPU kernels read the host memory
  replay.prepare_launch();
  CHECK(order == std::vector<int>{1, 2});

  for (std::size_t i = 1; i < ReplayParameters::kCapacity; ++i) {
    (void)replay.slot(&owners[i], [](ReplayParameters::Slot&) {});
  }
  CHECK(replay.slots_used() == ReplayParameters::kCapacity);
  CHECK_THROWS_AS((void)replay.slot(&owners[ReplayParameters::kCapacity], [](ReplayParameters::Slot&) {}),
                  InvalidArgument);

  ReplayParameters::Recording recording(replay);
  ReplayParameters other(Device::cpu());
  CHECK_THROWS_AS([&] { const ReplayParameters::Recording nested(other); }(), InvalidArgument);
}

TEST_CASE("CapturedStep refuses a CPU device and leaves no recording behind") {
  bool ran = false;
  CHECK_THROWS_AS(CapturedStep::capture(
                      Device::cpu(), [&](CapturedStep&) { ran = true; }, [] {}),
                  Error);
  CHECK_FALSE(ran);
  CHECK(ReplayParameters::active() == nullptr);
}
