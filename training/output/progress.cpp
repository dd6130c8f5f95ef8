#include "training/output/progress.hpp"

#include <unistd.h>

#include <string>

namespace sgnn::training {

namespace {

ProgressLine::Mode resolve(std::FILE* stream, ProgressLine::Mode mode) {
  if (mode != ProgressLine::Mode::Auto) return mode;
  return isatty(fileno(stream)) != 0 ? ProgressLine::Mode::Terminal : ProgressLine::Mode::Plain;
}

}  // namespace

ProgressLine::ProgressLine(std::FILE* stream, Mode mode) : stream_(stream), mode_(resolve(stream, mode)) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(const std::string& line) {
  switch (mode_) {
    case Mode::Terminal:
      // \r returns to column 0, ESC[K erases what a longer previous line left.
      std::fprintf(stream_, "\r%s\x1b[K", line.c_str());
      open_ = true;
      break;
    case Mode::Plain: std::fprintf(stream_, "%s\n", line.c_str()); break;
    case Mode::Quiet:
    case Mode::Auto: return;
  }
  std::fflush(stream_);
}

void ProgressLine::finish() {
  if (!open_) return;
  std::fputc('\n', stream_);
  std::fflush(stream_);
  open_ = false;
}

std::string format_epoch(const EpochRecord& record, int64_t total_epochs) {
  const int width = static_cast<int>(std::to_string(total_epochs).size());
  char buffer[160];
  std::snprintf(buffer, sizeof buffer, "epoch %*lld/%lld  loss %.4f  train %.4f  val %.4f (loss %.4f)  %.2f ms", width,
                static_cast<long long>(record.epoch), static_cast<long long>(total_epochs), record.train_loss,
                record.train_accuracy, record.validation_accuracy, record.validation_loss, record.epoch_ms);
  return buffer;
}

}  // namespace sgnn::training
