// libFuzzer target for the .npy reader and writer, through a file as users reach it.
//
// For arbitrary bytes written to a file: ReadNpy must return (OK or an error with a message)
// without crashing, and agree with ParseNpy on the same bytes. When it succeeds,
// the array must be valid, the typed view As<T>() and NpyArray::From<T>() must reproduce it,
// SerializeNpy must succeed, re-parsing must give the same array, and serializing that again must
// give the same bytes (the writer is a fixed point). Any mismatch aborts: abort() is allowed
// here, in the fuzzer only.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "core_ref/npy/npy.h"
#include "fuzz/fuzz_input.h"

namespace {

[[noreturn]] void Fail(const char* what, const dashi::Status& s = dashi::OkStatus()) {
  dashi::fuzz::Broken("npy_fuzz", what, s);
}

// As<T>() then From<T>() must give back the same array; As of any other type must fail.
template <dashi::NpyElement T, dashi::NpyElement Other>
void CheckTyped(const dashi::NpyArray& a) {
  if (a.dtype != dashi::NpyDtypeOf<T>()) return;
  dashi::StatusOr<std::vector<T>> values = a.As<T>();
  if (!values.ok()) Fail("As<T>() failed on a parsed array:", values.status());
  if (static_cast<int64_t>(values->size()) != a.NumElements()) Fail("As<T>() size mismatch");
  dashi::StatusOr<dashi::NpyArray> b = dashi::NpyArray::From<T>(a.shape, *values);
  if (!b.ok()) Fail("From<T>() failed:", b.status());
  if (!(*b == a)) Fail("From<T>(As<T>()) changed the array");
  if (a.As<Other>().ok()) Fail("As<T>() accepted the wrong dtype");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = dashi::fuzz::InputAsFile(data, size, "input.npy");
  dashi::StatusOr<dashi::NpyArray> a = dashi::ReadNpy(path);
  dashi::StatusOr<dashi::NpyArray> parsed = dashi::ParseNpy(std::span<const uint8_t>(data, size));
  if (a.ok() != parsed.ok()) Fail("ReadNpy and ParseNpy disagree on the same bytes:", a.status());
  if (!a.ok()) {
    dashi::fuzz::RequireMessage("npy_fuzz", a.status());
    if (a.status().message().rfind(path + ": ", 0) != 0) Fail("error does not name the file:", a.status());
    return 0;
  }
  if (!(*a == *parsed)) Fail("ReadNpy and ParseNpy read different arrays");
  dashi::Status valid = a->Validate();
  if (!valid.ok()) Fail("parsed array is not valid:", valid);
  CheckTyped<double, float>(*a);
  CheckTyped<float, double>(*a);
  CheckTyped<int8_t, uint8_t>(*a);
  CheckTyped<uint8_t, int8_t>(*a);
  CheckTyped<int32_t, int64_t>(*a);
  CheckTyped<int64_t, uint64_t>(*a);
  CheckTyped<uint64_t, int64_t>(*a);

  dashi::StatusOr<std::vector<uint8_t>> bytes = dashi::SerializeNpy(*a);
  if (!bytes.ok()) Fail("SerializeNpy failed on a parsed array:", bytes.status());
  if (bytes->size() % 64 != a->data.size() % 64) Fail("preamble is not 64-byte aligned");

  dashi::StatusOr<dashi::NpyArray> b = dashi::ParseNpy(*bytes);
  if (!b.ok()) Fail("re-parse of serialized bytes failed:", b.status());
  if (!(*a == *b)) Fail("round trip changed the array");

  dashi::StatusOr<std::vector<uint8_t>> bytes2 = dashi::SerializeNpy(*b);
  if (!bytes2.ok() || *bytes2 != *bytes) Fail("serialization is not a fixed point");
  return 0;
}
