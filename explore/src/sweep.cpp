#include "vdla/explore/sweep.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "vdla/explore/result_json.h"
#include "vdla/hw/error.h"

namespace vdla::explore {

namespace {

// An interrupted sweep may leave its last entry cut short (no newline):
// drop it, so that the entries appended next start on a line of their own.
void dropCutLastLine(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.empty() || text.back() == '\n') return;
  const size_t keep = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  in.close();
  std::filesystem::resize_file(path, keep);
}

// Reads the cache: key -> result JSON. Every line must be an entry.
std::unordered_map<std::string, nlohmann::json> readCache(const std::string& path) {
  std::unordered_map<std::string, nlohmann::json> cache;
  std::ifstream in(path);
  if (!in) return cache;
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    try {
      nlohmann::json j = nlohmann::json::parse(line);
      cache[j.at("key").get<std::string>()] = j.at("result");
    } catch (const nlohmann::json::exception& e) {
      throw Error(path + ":" + std::to_string(number) + ": unreadable sweep cache entry (" + e.what() +
                  "); delete the file to start the sweep afresh");
    }
  }
  return cache;
}

}  // namespace

std::vector<PointResult> runSweep(const std::vector<DesignPoint>& points, const std::vector<NetworkWorkload>& networks,
                                  const ResourceModel& model, const FpgaPart& part, const SweepOptions& options,
                                  SweepStats* stats) {
  const auto start = std::chrono::steady_clock::now();
  std::unordered_map<std::string, nlohmann::json> cache;
  std::ofstream cache_out;
  if (!options.cache_path.empty()) {
    dropCutLastLine(options.cache_path);
    cache = readCache(options.cache_path);
    cache_out.open(options.cache_path, std::ios::app);
    if (!cache_out) throw Error(options.cache_path + ": cannot write the sweep cache");
  }
  std::vector<PointResult> results(points.size());
  std::vector<size_t> todo;
  size_t cached = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    auto it = cache.find(designPointKey(points[i], networks, model));
    if (it != cache.end()) {
      results[i] = pointResultFromJson(it->second, points[i]);
      ++cached;
    } else {
      todo.push_back(i);
    }
  }
  std::mutex mu;
  size_t done = cached;
  if (options.progress && cached) options.progress(done, points.size(), cached);
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  auto worker = [&] {
    for (;;) {
      const size_t k = next.fetch_add(1);
      if (k >= todo.size()) return;
      const size_t i = todo[k];
      PointResult r;
      try {
        r = evaluateDesignPoint(points[i], networks, model, part);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = std::current_exception();
        next = todo.size();  // stop the other workers: an internal error is not a result
        return;
      }
      std::lock_guard<std::mutex> lock(mu);
      if (cache_out.is_open()) {
        const nlohmann::json entry = {{"key", designPointKey(points[i], networks, model)},
                                      {"result", pointResultToJson(r)}};
        cache_out << entry.dump() << "\n" << std::flush;
      }
      results[i] = std::move(r);
      ++done;
      if (options.progress) options.progress(done, points.size(), cached);
    }
  };
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, todo.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  if (stats) {
    stats->evaluated = todo.size();
    stats->cached = cached;
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return results;
}

}  // namespace vdla::explore
