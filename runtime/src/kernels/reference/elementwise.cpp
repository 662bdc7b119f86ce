// Element-wise reference kernels: unary activations and math, binary
// arithmetic with numpy broadcasting (and a fused activation), Clip and Cast.
#include <cmath>

#include "common.h"
#include "register.h"

namespace vdla::rt::ref {

namespace {

template <typename F>
void unaryF32(const KernelArgs& a, F f) {
  const Tensor& x = a.input(0);
  requireDType(x, DType::F32, "input");
  requireShape(a.output(0), x.shape());
  const float* xp = x.data<float>();
  float* y = a.output(0).data<float>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) y[i] = f(xp[i]);
}

// f is a generic lambda applied to f32, i8, i32 or i64 elements.
template <typename F>
void unarySigned(const KernelArgs& a, F f) {
  const Tensor& x = a.input(0);
  requireShape(a.output(0), x.shape());
  requireDType(a.output(0), x.dtype(), "output");
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data<T>();
    T* y = a.output(0).data<T>();
    for (int64_t i = 0, n = x.numElements(); i < n; ++i) y[i] = f(xp[i]);
  };
  switch (x.dtype()) {
    case DType::F32: run(float{}); break;
    case DType::I8: run(int8_t{}); break;
    case DType::I32: run(int32_t{}); break;
    case DType::I64: run(int64_t{}); break;
    default: throw KernelError(std::string("unsupported element type ") + dtypeName(x.dtype()));
  }
}

enum class BinaryOp { Add, Sub, Mul, Div };

template <BinaryOp kOp, typename T>
void binaryTyped(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  const Tensor& z = a.input(1);
  Tensor& y = a.output(0);
  const T* xp = x.data<T>();
  const T* zp = z.data<T>();
  T* yp = y.data<T>();
  forEachBroadcast(y.shape(), x.shape(), z.shape(), [&](int64_t i, int64_t ix, int64_t iz) {
    // 8-bit integers wrap around, as numpy (and so the ONNX tests) computes them.
    const T p = xp[ix], q = zp[iz];
    if constexpr (kOp == BinaryOp::Add)
      yp[i] = static_cast<T>(p + q);
    else if constexpr (kOp == BinaryOp::Sub)
      yp[i] = static_cast<T>(p - q);
    else if constexpr (kOp == BinaryOp::Mul)
      yp[i] = static_cast<T>(p * q);
    else {
      if constexpr (std::is_integral_v<T>) require(q != 0, "integer division by zero");
      yp[i] = static_cast<T>(p / q);
    }
  });
}

template <BinaryOp kOp>
void binary(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  const Tensor& z = a.input(1);
  Tensor& y = a.output(0);
  require(x.dtype() == z.dtype() && y.dtype() == x.dtype(), "operand and output types must agree");
  switch (x.dtype()) {
    case DType::F32:
      binaryTyped<kOp, float>(a);
      readActivation(a.attributes()).apply(y.data<float>(), y.numElements());
      return;
    case DType::U8: binaryTyped<kOp, uint8_t>(a); break;
    case DType::I8: binaryTyped<kOp, int8_t>(a); break;
    case DType::I32: binaryTyped<kOp, int32_t>(a); break;
    case DType::I64: binaryTyped<kOp, int64_t>(a); break;
    default: throw KernelError(std::string("unsupported element type ") + dtypeName(x.dtype()));
  }
  require(!a.attributes().has("activation"), "attribute 'activation' needs f32 operands");
}

// Pow(x, y): f32 base, f32 or integer exponent, broadcast like the others.
void pow(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  const Tensor& z = a.input(1);
  Tensor& y = a.output(0);
  require(x.dtype() == DType::F32 && y.dtype() == DType::F32, "Pow takes an f32 base");
  const float* xp = x.data<float>();
  float* yp = y.data<float>();
  forEachBroadcast(y.shape(), x.shape(), z.shape(), [&](int64_t i, int64_t ix, int64_t iz) {
    yp[i] = std::pow(xp[ix], static_cast<float>(z.getAsDouble(iz)));
  });
}

// Mod(a, b): fmod = 0 takes the divisor's sign (a - floor(a / b) * b for
// integers), fmod = 1 the dividend's (C's % and std::fmod).
template <typename T>
void modTyped(const KernelArgs& a, bool c_remainder) {
  const T* xp = a.input(0).data<T>();
  const T* zp = a.input(1).data<T>();
  T* yp = a.output(0).data<T>();
  forEachBroadcast(a.output(0).shape(), a.input(0).shape(), a.input(1).shape(), [&](int64_t i, int64_t ix, int64_t iz) {
    const T p = xp[ix], q = zp[iz];
    if constexpr (std::is_floating_point_v<T>) {
      yp[i] = std::fmod(p, q);
    } else {
      require(q != 0, "integer Mod by zero");
      // In 64 bits: INT_MIN % -1 is undefined in the narrower type's arithmetic.
      int64_t r = static_cast<int64_t>(p) % static_cast<int64_t>(q);
      if (!c_remainder && r != 0 && ((r < 0) != (q < 0))) r += q;
      yp[i] = static_cast<T>(r);
    }
  });
}

void mod(const KernelArgs& a) {
  const DType t = a.input(0).dtype();
  require(a.input(1).dtype() == t && a.output(0).dtype() == t, "operand and output types must agree");
  const bool c_remainder = a.attributes().getInt("fmod", 0) != 0;
  switch (t) {
    case DType::F32: require(c_remainder, "Mod of f32 operands needs fmod = 1"); return modTyped<float>(a, true);
    case DType::U8: return modTyped<uint8_t>(a, c_remainder);
    case DType::I8: return modTyped<int8_t>(a, c_remainder);
    case DType::I32: return modTyped<int32_t>(a, c_remainder);
    case DType::I64: return modTyped<int64_t>(a, c_remainder);
    default: throw KernelError(std::string("Mod: unsupported element type ") + dtypeName(t));
  }
}

// Clip(x, min?, max?) or, before opset 11, attributes min and max.
void clip(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  requireShape(y, x.shape());
  requireDType(y, x.dtype(), "output");
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
    if constexpr (std::is_same_v<T, float>) {
      lo = static_cast<float>(a.attributes().getFloat("min", -INFINITY));
      hi = static_cast<float>(a.attributes().getFloat("max", INFINITY));
    }
    if (a.hasInput(1)) lo = a.input(1).data<T>()[0];
    if (a.hasInput(2)) hi = a.input(2).data<T>()[0];
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    // min(max(x, lo), hi): when lo > hi every element becomes hi, as in the spec.
    for (int64_t i = 0, n = x.numElements(); i < n; ++i) yp[i] = std::min(std::max(xp[i], lo), hi);
  };
  switch (x.dtype()) {
    case DType::F32: run(float{}); break;
    case DType::U8: run(uint8_t{}); break;
    case DType::I8: run(int8_t{}); break;
    case DType::I32: run(int32_t{}); break;
    case DType::I64: run(int64_t{}); break;
    default: throw KernelError(std::string("unsupported element type ") + dtypeName(x.dtype()));
  }
}

// Float to integer truncates toward zero (C++ conversion), saturating outside
// the target's range and mapping NaN to 0 where C++ leaves it undefined.
template <typename To, typename From>
To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (std::isnan(v)) return To(0);
    const double t = std::trunc(static_cast<double>(v));
    if (t <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (t >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(t);
  } else {
    return static_cast<To>(v);
  }
}

template <typename F>
void withType(DType dtype, F f) {
  switch (dtype) {
    case DType::F32: f(float{}); break;
    case DType::U8: f(uint8_t{}); break;
    case DType::I8: f(int8_t{}); break;
    case DType::I32: f(int32_t{}); break;
    case DType::I64: f(int64_t{}); break;
    case DType::Bool: f(bool{}); break;
  }
}

// Cast to the output's element type (the compiler derived it from `to`).
void cast(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  requireShape(y, x.shape());
  withType(x.dtype(), [&](auto from_tag) {
    using From = decltype(from_tag);
    withType(y.dtype(), [&](auto to_tag) {
      using To = decltype(to_tag);
      const From* xp = x.data<From>();
      To* yp = y.data<To>();
      for (int64_t i = 0, n = x.numElements(); i < n; ++i) yp[i] = convert<To>(xp[i]);
    });
  });
}

}  // namespace

void registerElementwise(KernelRegistry& r) {
  r.add("ref.Relu", [](const KernelArgs& a) { unarySigned(a, [](auto v) { return v > 0 ? v : decltype(v)(0); }); });
  r.add("ref.Neg", [](const KernelArgs& a) { unarySigned(a, [](auto v) { return decltype(v)(-v); }); });
  r.add("ref.Abs", [](const KernelArgs& a) { unarySigned(a, [](auto v) { return v < 0 ? decltype(v)(-v) : v; }); });
  r.add("ref.Sigmoid", [](const KernelArgs& a) { unaryF32(a, [](float v) { return 1.0f / (1.0f + std::exp(-v)); }); });
  r.add("ref.Tanh", [](const KernelArgs& a) { unaryF32(a, [](float v) { return std::tanh(v); }); });
  r.add("ref.Exp", [](const KernelArgs& a) { unaryF32(a, [](float v) { return std::exp(v); }); });
  r.add("ref.Sqrt", [](const KernelArgs& a) { unaryF32(a, [](float v) { return std::sqrt(v); }); });
  r.add("ref.Reciprocal", [](const KernelArgs& a) { unaryF32(a, [](float v) { return 1.0f / v; }); });
  r.add("ref.Erf", [](const KernelArgs& a) { unaryF32(a, [](float v) { return std::erf(v); }); });
  r.add("ref.LeakyRelu", [](const KernelArgs& a) {
    const float alpha = static_cast<float>(a.attributes().getFloat("alpha", 0.01));
    unaryF32(a, [alpha](float v) { return v >= 0 ? v : alpha * v; });
  });
  r.add("ref.HardSigmoid", [](const KernelArgs& a) {
    const float alpha = static_cast<float>(a.attributes().getFloat("alpha", 0.2));
    const float beta = static_cast<float>(a.attributes().getFloat("beta", 0.5));
    unaryF32(a, [=](float v) { return std::max(0.0f, std::min(1.0f, alpha * v + beta)); });
  });
  r.add("ref.HardSwish", [](const KernelArgs& a) {
    unaryF32(a, [](float v) { return v * std::max(0.0f, std::min(1.0f, v / 6.0f + 0.5f)); });
  });
  r.add("ref.Add", binary<BinaryOp::Add>);
  r.add("ref.Sub", binary<BinaryOp::Sub>);
  r.add("ref.Mul", binary<BinaryOp::Mul>);
  r.add("ref.Div", binary<BinaryOp::Div>);
  r.add("ref.Pow", pow);
  r.add("ref.Mod", mod);
  r.add("ref.Clip", clip);
  r.add("ref.Cast", cast);
}

}  // namespace vdla::rt::ref
