// How the prepare() of a case or of a collective ends before the case runs: the early result
// says why (its status and message; a SKIPPED one its skip reason) and keeps the phases timed so
// far, and prepare() returns no prepared case.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "model/case_result.h"

namespace opcert {

template <class Prepared>
class EarlyEnd {
 public:
  /// `prepared` may still be empty when an end is called: the phases are then none.
  EarlyEnd(CaseResult& early, const std::unique_ptr<Prepared>& prepared) : early_(early), prepared_(prepared) {}

  std::unique_ptr<Prepared> fail(Status status, std::string message) const {
    early_.status = status;
    early_.message = std::move(message);
    early_.phases = prepared_ ? prepared_->phases() : PhaseTimes{};
    return nullptr;
  }

  std::unique_ptr<Prepared> skip(std::string_view reason, std::string message) const {
    early_.skip_reason = reason;
    return fail(Status::kSkipped, std::move(message));
  }

 private:
  CaseResult& early_;
  const std::unique_ptr<Prepared>& prepared_;
};

}  // namespace opcert
