// Kernels by name. A compiled artifact names, for every node, the kernel that runs
// it on its device ("ref.Conv", "vdla.conv2d", ...); the runtime looks them up
// here. Registration is explicit (registerReferenceKernels and friends) rather
// than through static constructors, which static libraries would drop.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "vdla/runtime/attributes.h"
#include "vdla/runtime/tensor.h"

namespace vdla::rt {

// What a kernel sees. Outputs are allocated by the caller with the types the
// compiler inferred; a kernel writes them and never reallocates them. A missing
// optional input is nullptr.
struct KernelArgs {
  std::vector<const Tensor*> inputs;
  std::vector<Tensor*> outputs;
  const AttributeMap* attrs = nullptr;

  const Tensor& input(size_t i) const;  // throws when missing
  bool hasInput(size_t i) const { return i < inputs.size() && inputs[i] != nullptr; }
  Tensor& output(size_t i) const;
  const AttributeMap& attributes() const { return *attrs; }
};

// Thrown by kernels for bad input (unsupported attribute values, mismatched
// shapes); the executor adds the node's name and operator.
class KernelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using KernelFn = std::function<void(const KernelArgs&)>;

class KernelRegistry {
 public:
  // The registry every executor uses unless given another.
  static KernelRegistry& global();

  // Throws when the name is taken.
  void add(const std::string& name, KernelFn fn);
  const KernelFn* find(const std::string& name) const;
  const KernelFn& get(const std::string& name) const;  // throws naming the kernel
  std::vector<std::string> names() const;

 private:
  std::map<std::string, KernelFn> kernels_;
};

}  // namespace vdla::rt
