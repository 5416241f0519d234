// Why a case was SKIPPED, as a class the summaries group skips by (docs/CLI.md, "Coverage"); the
// backend's or the harness's own words stay in CaseResult::message.
#pragma once

#include <string_view>

namespace opcert::skip_reason {

/// The backend's query_op said no: a dtype, layout, shape or variant it does not take.
inline constexpr std::string_view kDeclined = "declined";
/// Memory admission: the case needs more host or device memory than there is (or --max-memory).
inline constexpr std::string_view kTooBig = "too_big";
/// The harness cannot run it here: a collective not exact on this many ranks, or another rank's skip.
inline constexpr std::string_view kNotRunnable = "not_runnable";
/// Coverage only, never a result's: the backend has no implementation of the op at all.
inline constexpr std::string_view kNotImplemented = "not_implemented";

/// How tables say it: "declined by the backend", "too big for memory", ...; `reason` itself for
/// one it does not know, "unclassified" for "" (a result from a report before schema 2.7).
inline std::string_view phrase(std::string_view reason) {
  if (reason == kDeclined) return "declined by the backend";
  if (reason == kTooBig) return "too big for memory";
  if (reason == kNotRunnable) return "not runnable here";
  if (reason == kNotImplemented) return "no implementation";
  return reason.empty() ? "unclassified" : reason;
}

}  // namespace opcert::skip_reason
