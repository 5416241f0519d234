#include "session/execution/case_memo.h"

namespace opcert {

void CaseMemo::begin(const Case& c) {
  if (holds(c)) return;
  inputs_.reset();
  golden_.reset();
  case_ = &c;
  id_ = c.id;
  seed_ = c.seed;
}

CaseMemo::Inputs CaseMemo::inputs(const Case& c, const std::function<std::vector<HostTensor>()>& generate) {
  begin(c);
  if (!inputs_) inputs_ = std::make_shared<const std::vector<HostTensor>>(generate());
  return inputs_;
}

CaseMemo::Golden CaseMemo::golden(const Case& c, const std::function<std::vector<ReferenceOutput>()>& compute) {
  begin(c);
  if (!golden_) golden_ = std::make_shared<const std::vector<ReferenceOutput>>(compute());
  return golden_;
}

}  // namespace opcert
