#include "ops/first_taker.h"

#include <opcert/sdk/error.h>

#include <memory>
#include <string>
#include <utility>

namespace opcert::cuda {
namespace {

using Members = std::vector<sdk::Implementation>;

/// The first member that takes `call`, or null with why none does.
const sdk::Implementation* taker(const Members& members, const sdk::OpCall& call, std::string& why) {
  for (const auto& m : members) {
    const sdk::Support s = m.query(call);
    if (s.supported) return &m;
    why += (why.empty() ? "" : "; ") + m.key + ": " + s.reason;
  }
  return nullptr;
}

}  // namespace

sdk::Implementation first_taker(std::string key, std::string op, std::string description, Members members) {
  const auto shared = std::make_shared<const Members>(std::move(members));
  sdk::Implementation impl;
  impl.key = std::move(key);
  impl.op = std::move(op);
  impl.description = std::move(description);
  impl.query = [shared](const sdk::OpCall& call) {
    std::string why;
    return taker(*shared, call, why) != nullptr ? sdk::Support::yes() : sdk::Support::no("no kernel takes it (" + why + ")");
  };
  impl.run = [shared](const sdk::OpCall& call) {
    std::string why;
    const sdk::Implementation* m = taker(*shared, call, why);
    if (m == nullptr) throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, "no kernel takes it (" + why + ")");
    m->run(call);
  };
  impl.library_call = [shared](const sdk::OpCall& call) {
    std::string why;
    const sdk::Implementation* m = taker(*shared, call, why);
    if (m == nullptr) return std::string();
    const std::string inner = m->library_call ? m->library_call(call) : std::string();
    return m->key + (inner.empty() ? "" : ": " + inner);
  };
  return impl;
}

}  // namespace opcert::cuda
