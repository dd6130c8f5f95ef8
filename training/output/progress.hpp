// ProgressLine: one status line per epoch. On a terminal the line rewrites
// itself in place (carriage return + erase to end of line); when the stream
// is piped or redirected every update is printed on its own line so logs
// stay readable. Quiet mode prints nothing.
#pragma once

#include <cstdio>
#include <string>

#include "training/output/epoch_record.hpp"

namespace sgnn::training {

class ProgressLine {
 public:
  enum class Mode : unsigned char { Auto, Terminal, Plain, Quiet };
  // Auto: Terminal when `stream` is a terminal (isatty), Plain otherwise.
  explicit ProgressLine(std::FILE* stream = stderr, Mode mode = Mode::Auto);
  ~ProgressLine();  // finishes an open terminal line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(const std::string& line);
  // Ends the in-place line (a newline on a terminal); no-op otherwise.
  void finish();
  Mode mode() const { return mode_; }

 private:
  std::FILE* stream_;
  Mode mode_;
  bool open_ = false;
};

// "epoch  12  loss 1.2345  train 0.9286  val 0.7420 (loss 1.1000)  12.3 ms"
std::string format_epoch(const EpochRecord& record, int64_t total_epochs);

}  // namespace sgnn::training
