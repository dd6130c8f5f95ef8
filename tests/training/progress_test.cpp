#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "training/output/progress.hpp"

using namespace sgnn::training;

namespace {
std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
  return text;
}
}  // namespace

TEST_CASE("progress prints one plain line per update when the stream is not a terminal") {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  {
    ProgressLine progress(file);  // Auto: a file is not a terminal
    CHECK(progress.mode() == ProgressLine::Mode::Plain);
    progress.update("one");
    progress.update("two");
  }
  CHECK(contents(file) == "one\ntwo\n");
  std::fclose(file);
}

TEST_CASE("progress rewrites one line in terminal mode and ends it on finish") {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  {
    ProgressLine progress(file, ProgressLine::Mode::Terminal);
    progress.update("epoch 1");
    progress.update("epoch 2");
    progress.finish();
    progress.finish();  // idempotent
  }
  CHECK(contents(file) == "\repoch 1\x1b[K\repoch 2\x1b[K\n");
  std::fclose(file);
}

TEST_CASE("quiet progress prints nothing") {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  {
    ProgressLine progress(file, ProgressLine::Mode::Quiet);
    progress.update("hidden");
  }
  CHECK(contents(file).empty());
  std::fclose(file);
}

TEST_CASE("format_epoch shows epoch, loss, accuracies and time") {
  EpochRecord record;
  record.epoch = 7;
  record.train_loss = 1.23456;
  record.train_accuracy = 0.5;
  record.validation_accuracy = 0.25;
  record.validation_loss = 2.0;
  record.epoch_ms = 3.5;
  CHECK(format_epoch(record, 200) == "epoch   7/200  loss 1.2346  train 0.5000  val 0.2500 (loss 2.0000)  3.50 ms");
}
