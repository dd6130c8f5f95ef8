#include "core/process_clock.hpp"

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace sgnn {

std::optional<double> seconds_since_process_start() {
  std::ifstream stat("/proc/self/stat");
  std::string line;
  if (!std::getline(stat, line)) return std::nullopt;
  // Field 2 (the command name) may hold spaces and parentheses: count from the last ')'.
  const std::size_t name_end = line.rfind(')');
  if (name_end == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(name_end + 1));
  std::string field;
  for (int index = 3; index < 22 && fields >> field; ++index) {
  }
  unsigned long long start_ticks = 0;  // field 22: start time in clock ticks after boot
  if (!(fields >> start_ticks)) return std::nullopt;
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  timespec now{};
  if (ticks_per_second <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return std::nullopt;
  const double since_boot = static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
  return since_boot - static_cast<double>(start_ticks) / static_cast<double>(ticks_per_second);
}

}  // namespace sgnn
