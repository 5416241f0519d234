// How a call's arrays are laid out for a backend of a given ABI minor (docs/ABI.md, "Arrays"):
// a backend built before a field was appended to opcert_tensor or opcert_attr steps through
// the arrays by its own, smaller sizeof, so the host hands it arrays of that stride, each element
// a prefix of the host's with its struct_size set to the stride. Written against the ABI header
// alone, so that a test can build it under a header whose structs have grown.
#pragma once

#include <opcert/backend_abi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace opcert {

/// sizeof(opcert_tensor) and sizeof(opcert_attr) as a backend of `minor` was compiled with
/// (this host's own for its minor or a newer one).
std::size_t tensor_size_in_minor(int32_t minor);
std::size_t attr_size_in_minor(int32_t minor);

/// `call` as a backend of ABI minor `minor` reads it. When that minor's element sizes are this
/// host's (every minor so far), call() is `call` itself and nothing is copied; otherwise the
/// arrays are copied into narrower ones. The source call must outlive this object.
class CallLayout {
 public:
  CallLayout(const opcert_op_call& call, int32_t minor);
  CallLayout(const CallLayout&) = delete;
  CallLayout& operator=(const CallLayout&) = delete;

  const opcert_op_call& call() const { return narrowed_ ? copy_ : *source_; }

 private:
  const opcert_op_call* source_;
  bool narrowed_ = false;
  opcert_op_call copy_{};
  std::vector<std::byte> inputs_, outputs_, attrs_;
};

}  // namespace opcert
