#include "history/sql_connection.h"

#include <cmath>

namespace opcert {

SqlTransaction::SqlTransaction(SqlConnection& connection, Kind kind) : connection_(connection) {
  if (kind == Kind::kWrite)
    connection_.begin_write();
  else
    connection_.begin_read();
}

SqlTransaction::~SqlTransaction() {
  if (open_) connection_.rollback();
}

void SqlTransaction::commit() {
  connection_.commit();
  open_ = false;
}

std::optional<int64_t> sql_int(const SqlValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return static_cast<int64_t>(std::llround(*d));
  if (const auto* s = std::get_if<std::string>(&v)) {
    try {
      return std::stoll(*s);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<double> sql_real(const SqlValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* s = std::get_if<std::string>(&v)) {
    try {
      return std::stod(*s);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string sql_text(const SqlValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return std::to_string(*d);
  return "";
}

SqlValue sql_nullable(const std::optional<double>& v) {
  // A NaN or infinity is no figure: NULL, as report.json writes null.
  if (!v || !std::isfinite(*v)) return std::monostate{};
  return *v;
}

SqlValue sql_nullable(const std::optional<int64_t>& v) {
  if (!v) return std::monostate{};
  return *v;
}

}  // namespace opcert
