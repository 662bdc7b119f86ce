#include "vdla/runtime/einsum_equation.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace vdla::rt {

namespace {

// One side of the equation: its letters, and where its ellipsis stands (-1: none).
struct Term {
  std::string letters;
  int ellipsis_at = -1;  // index into letters before which the ellipsis stands
};

Term parseTerm(const std::string& text, const std::string& equation) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (text.compare(i, 3, "...") != 0 || t.ellipsis_at >= 0)
        throw std::invalid_argument("equation '" + equation + "': a term may hold one '...' and no other dots");
      t.ellipsis_at = static_cast<int>(t.letters.size());
      i += 2;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      throw std::invalid_argument("equation '" + equation + "': unexpected character '" + std::string(1, c) + "'");
    t.letters += c;
  }
  return t;
}

}  // namespace

Shape EinsumEquation::outputShape() const {
  Shape s;
  for (int l : output) s.push_back(extents[static_cast<size_t>(l)]);
  return s;
}

EinsumEquation resolveEinsum(const std::string& equation, const std::vector<Shape>& shapes) {
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<Term> inputs;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    inputs.push_back(
        parseTerm(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start), equation));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (inputs.size() != shapes.size())
    throw std::invalid_argument("equation '" + equation + "' has " + std::to_string(inputs.size()) +
                                " operand terms, got " + std::to_string(shapes.size()) + " inputs");
  // Ellipsis dimensions broadcast like numpy: aligned from the right.
  size_t ellipsis_rank = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t rank = shapes[i].size(), named = inputs[i].letters.size();
    if (inputs[i].ellipsis_at < 0 ? rank != named : rank < named)
      throw std::invalid_argument("equation '" + equation + "': operand " + std::to_string(i) + " has rank " +
                                  std::to_string(rank) + " but its term names " + std::to_string(named) +
                                  " dimensions");
    if (inputs[i].ellipsis_at >= 0) ellipsis_rank = std::max(ellipsis_rank, rank - named);
  }
  EinsumEquation e;
  std::map<char, int> label_of;
  std::map<char, int> occurrences;
  // Labels 0 .. ellipsis_rank-1 are the ellipsis dimensions.
  e.extents.assign(ellipsis_rank, 1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Term& t = inputs[i];
    const Shape& shape = shapes[i];
    const size_t ell = t.ellipsis_at < 0 ? 0 : shape.size() - t.letters.size();
    std::vector<int>& labels = e.operands.emplace_back();
    size_t d = 0;
    for (size_t k = 0; k <= t.letters.size(); ++k) {
      if (static_cast<int>(k) == t.ellipsis_at)
        for (size_t j = 0; j < ell; ++j, ++d) {
          const int label = static_cast<int>(ellipsis_rank - ell + j);
          int64_t& extent = e.extents[static_cast<size_t>(label)];
          if (extent != shape[d] && extent != 1 && shape[d] != 1)
            throw std::invalid_argument("equation '" + equation + "': the '...' dimensions of operand " +
                                        std::to_string(i) + " do not broadcast (" + std::to_string(extent) +
                                        " against " + std::to_string(shape[d]) + ")");
          extent = std::max(extent, shape[d]);
          labels.push_back(label);
        }
      if (k == t.letters.size()) break;
      const char c = t.letters[k];
      ++occurrences[c];
      auto [it, added] = label_of.emplace(c, static_cast<int>(e.extents.size()));
      if (added)
        e.extents.push_back(shape[d]);
      else if (e.extents[static_cast<size_t>(it->second)] != shape[d])
        throw std::invalid_argument("equation '" + equation + "': label '" + std::string(1, c) + "' is " +
                                    std::to_string(e.extents[static_cast<size_t>(it->second)]) + " in one place and " +
                                    std::to_string(shape[d]) + " in operand " + std::to_string(i));
      labels.push_back(it->second);
      ++d;
    }
  }
  if (arrow != std::string::npos) {
    const Term out = parseTerm(equation.substr(arrow + 2), equation);
    if (out.ellipsis_at < 0 && ellipsis_rank > 0)
      throw std::invalid_argument("equation '" + equation + "': the output must hold the '...' dimensions");
    for (size_t k = 0; k <= out.letters.size(); ++k) {
      if (static_cast<int>(k) == out.ellipsis_at)
        for (size_t j = 0; j < ellipsis_rank; ++j) e.output.push_back(static_cast<int>(j));
      if (k == out.letters.size()) break;
      const auto it = label_of.find(out.letters[k]);
      if (it == label_of.end())
        throw std::invalid_argument("equation '" + equation + "': output label '" + std::string(1, out.letters[k]) +
                                    "' names no input dimension");
      if (std::count(e.output.begin(), e.output.end(), it->second))
        throw std::invalid_argument("equation '" + equation + "': output label '" + std::string(1, out.letters[k]) +
                                    "' appears twice");
      e.output.push_back(it->second);
    }
  } else {
    for (size_t j = 0; j < ellipsis_rank; ++j) e.output.push_back(static_cast<int>(j));
    for (const auto& [c, n] : occurrences)  // std::map: alphabetical (upper case first, as ASCII)
      if (n == 1) e.output.push_back(label_of.at(c));
  }
  for (int l = 0; l < static_cast<int>(e.extents.size()); ++l)
    if (!std::count(e.output.begin(), e.output.end(), l)) e.summed.push_back(l);
  return e;
}

}  // namespace vdla::rt
