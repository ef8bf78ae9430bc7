//===- Float.h - Reading single-precision constants -------------*- C++ -*-===//

#ifndef DSM_CORE_SUPPORT_FLOAT_H
#define DSM_CORE_SUPPORT_FLOAT_H

#include <charconv>
#include <cstdlib>

namespace dsm::core {

/// The double of the shortest decimal that reads back as `value`: a model's
/// 1e-5 stored as f32 is the epsilon 1e-5, not 9.99999974e-6.
inline double shortestDouble(float value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer) - 1, value);
  if (ec != std::errc())
    return value;
  *end = 0;
  return std::strtod(buffer, nullptr);
}

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_FLOAT_H
