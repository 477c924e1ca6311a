#include "conformance/framework/golden_input.h"

#include <cstdlib>

namespace dashi::conformance {

std::string GoldenDir() {
  const char* env = std::getenv("DASHI_GOLDEN_DIR");
  return (env != nullptr && env[0] != '\0') ? std::string(env) : std::string("golden");
}

StatusOr<NpyArray> ReadGolden(const std::string& name, const std::vector<int64_t>& shape) {
  const std::string path = GoldenDir() + "/" + name + ".npy";
  StatusOr<NpyArray> a = ReadNpy(path);
  if (!a.ok()) {
    return Status(a.status().code(), "golden array " + name +
                                         " unreadable (set DASHI_GOLDEN_DIR or run from the "
                                         "repository root): " +
                                         a.status().message());
  }
  if (!shape.empty() && a->shape != shape) {
    return InvalidArgumentError("golden " + name + " has shape " + NpyShapeString(a->shape) +
                                ", expected " + NpyShapeString(shape));
  }
  return a;
}

}  // namespace dashi::conformance
