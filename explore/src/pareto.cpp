#include "vdla/explore/pareto.h"

#include <algorithm>
#include <limits>

namespace vdla::explore {

std::vector<size_t> markParetoFront(std::vector<PointResult>& results, Objective objective) {
  auto ms = [&](const PointResult& r) { return objectiveMs(r, objective); };
  std::vector<size_t> order;
  for (size_t i = 0; i < results.size(); ++i) {
    results[i].on_front = false;
    if (results[i].fits() && results[i].complete) order.push_back(i);
  }
  // By DSP, then latency: a point is on the front when it is faster than
  // every point before it (which use no more DSPs).
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const PointResult &x = results[a], &y = results[b];
    if (x.resources.dsp != y.resources.dsp) return x.resources.dsp < y.resources.dsp;
    return ms(x) < ms(y);
  });
  // Equal points do not dominate each other: a twin of a front point
  // (same DSP, same latency) is on the front too.
  std::vector<size_t> front;
  double best = std::numeric_limits<double>::infinity(), best_dsp = -1;
  for (size_t i : order) {
    const PointResult& r = results[i];
    if (ms(r) < best || (ms(r) == best && r.resources.dsp == best_dsp)) {
      best = ms(r);
      best_dsp = r.resources.dsp;
      results[i].on_front = true;
      front.push_back(i);
    }
  }
  return front;
}

}  // namespace vdla::explore
