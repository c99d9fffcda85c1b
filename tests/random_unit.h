// A random unit vector (Gaussian coordinates, normalized), the data of the vector tests: uniform
// on the sphere, so nearest neighbours are neither clustered nor planted.
#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace pc::testing {

inline std::vector<float> RandomUnit(std::mt19937& rng, size_t dim) {
  std::normal_distribution<float> gauss(0, 1);
  std::vector<float> v(dim);
  double norm = 0;
  for (float& x : v) {
    x = gauss(rng);
    norm += static_cast<double>(x) * x;
  }
  for (float& x : v) x = static_cast<float>(x / std::sqrt(norm));
  return v;
}

}  // namespace pc::testing
