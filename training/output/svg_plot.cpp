#include "training/output/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "core/error.hpp"
#include "training/output/svg_document.hpp"

namespace sgnn::training {

namespace {

constexpr double kPanelWidth = 420;
constexpr double kPanelHeight = 300;
constexpr double kMarginLeft = 56;
constexpr double kMarginTop = 48;
constexpr double kMarginBottom = 44;
constexpr double kGap = 40;

struct Series {
  const char* label;
  const char* color;
  std::function<double(const EpochRecord&)> value;
};

std::string tick_label(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

// One panel at horizontal offset `left`: frame, 5 ticks per axis, a polyline per series, a legend.
void draw_panel(std::string& svg, double left, const std::string& name, const std::vector<EpochRecord>& records,
                const std::vector<Series>& series, double low, double high) {
  const double plot_left = left + kMarginLeft;
  const double plot_top = kMarginTop;
  const double plot_width = kPanelWidth - kMarginLeft - 16;
  const double plot_height = kPanelHeight - kMarginTop - kMarginBottom;
  const double first = static_cast<double>(records.front().epoch);
  const double last = static_cast<double>(records.back().epoch);
  const double span_x = last > first ? last - first : 1.0;
  const double span_y = high > low ? high - low : 1.0;
  auto x_of = [&](double epoch) { return plot_left + (epoch - first) / span_x * plot_width; };
  auto y_of = [&](double value) { return plot_top + (1.0 - (value - low) / span_y) * plot_height; };

  svg += "<g class=\"panel\">\n";
  svg += svg_text(plot_left + plot_width / 2, plot_top - 12, name, "text-anchor=\"middle\" font-size=\"14\"");
  svg += svg_rect(plot_left, plot_top, plot_width, plot_height, "fill=\"none\" stroke=\"#888\"");
  for (int tick = 0; tick <= 4; ++tick) {
    const double fraction = tick / 4.0;
    const double y_value = low + fraction * span_y;
    svg += svg_text(plot_left - 6, y_of(y_value) + 4, tick_label(y_value), "text-anchor=\"end\" font-size=\"10\"");
    const double x_value = first + fraction * span_x;
    svg += svg_text(x_of(x_value), plot_top + plot_height + 16, tick_label(std::round(x_value)),
                    "text-anchor=\"middle\" font-size=\"10\"");
  }
  svg += svg_text(plot_left + plot_width / 2, plot_top + plot_height + 34, "epoch",
                  "text-anchor=\"middle\" font-size=\"11\"");
  double legend_y = plot_top + 14;
  for (const Series& line : series) {
    std::string points;
    for (const EpochRecord& record : records) {
      const double value = line.value(record);
      if (!std::isfinite(value)) continue;
      if (!points.empty()) points += ' ';
      points += svg_number(x_of(static_cast<double>(record.epoch))) + "," + svg_number(y_of(value));
    }
    svg += "<polyline class=\"series\" data-label=\"" + xml_escape(line.label) + "\" fill=\"none\" stroke=\"" +
           line.color + "\" stroke-width=\"1.5\" points=\"" + points + "\"/>\n";
    svg += svg_text(plot_left + plot_width - 8, legend_y, line.label,
                    std::string("text-anchor=\"end\" font-size=\"11\" fill=\"") + line.color + "\"");
    legend_y += 14;
  }
  svg += "</g>\n";
}

// Range of the finite values of `series` over `records` (0..1 when none).
std::pair<double, double> value_range(const std::vector<EpochRecord>& records, const std::vector<Series>& series) {
  double low = std::numeric_limits<double>::infinity();
  double high = -low;
  for (const Series& line : series) {
    for (const EpochRecord& record : records) {
      const double value = line.value(record);
      if (!std::isfinite(value)) continue;
      low = std::min(low, value);
      high = std::max(high, value);
    }
  }
  if (low > high) return {0.0, 1.0};
  return {low, high};
}

}  // namespace

std::string training_curves_svg(const std::vector<EpochRecord>& records, const std::string& title) {
  SGNN_CHECK(!records.empty(), "training_curves_svg: no epochs to plot");
  const std::vector<Series> losses = {
      {"train loss", "#1f77b4", [](const EpochRecord& r) { return r.train_loss; }},
      {"validation loss", "#d62728", [](const EpochRecord& r) { return r.validation_loss; }}};
  const std::vector<Series> accuracies = {
      {"train accuracy", "#1f77b4", [](const EpochRecord& r) { return r.train_accuracy; }},
      {"validation accuracy", "#d62728", [](const EpochRecord& r) { return r.validation_accuracy; }}};
  const double width = 2 * kPanelWidth + kGap;
  const double height = kPanelHeight + 24;
  std::string body = svg_text(width / 2, 18, title, "text-anchor=\"middle\" font-size=\"15\"");
  const auto [loss_low, loss_high] = value_range(records, losses);
  draw_panel(body, 0, "loss", records, losses, std::min(0.0, loss_low), loss_high);
  draw_panel(body, kPanelWidth + kGap, "accuracy", records, accuracies, 0.0, 1.0);
  return svg_document(width, height, title, body);
}

void write_training_curves_svg(const std::filesystem::path& path, const std::vector<EpochRecord>& records,
                               const std::string& title) {
  write_svg_file(path, training_curves_svg(records, title));
}

}  // namespace sgnn::training
