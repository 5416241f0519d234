#include "history/postgres_connection.h"

#include <fmt/format.h>

#include "model/input_error.h"

#if OPCERT_HAVE_POSTGRES
#include <libpq-fe.h>

#include <cstdlib>
#endif

namespace opcert {

std::string redacted_url(const std::string& url) {
  std::string out = url;
  const size_t scheme = out.find("://");
  const size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t at = out.find('@', start);
  const size_t colon = out.find(':', start);
  if (at != std::string::npos && colon != std::string::npos && colon < at)
    out = out.substr(0, colon + 1) + "***" + out.substr(at);
  for (size_t p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 12)) {
    const size_t value = p + 9;
    const size_t end = out.find('&', value);
    out.replace(value, (end == std::string::npos ? out.size() : end) - value, "***");
  }
  return out;
}

#if OPCERT_HAVE_POSTGRES
namespace {

// Type OIDs of the columns read back as numbers (pg_type.h's fixed values).
constexpr Oid kBoolOid = 16, kInt8Oid = 20, kInt2Oid = 21, kInt4Oid = 23, kFloat4Oid = 700, kFloat8Oid = 701,
              kNumericOid = 1700;
// The advisory lock every writer of an opcert store takes: any constant shared by all of them.
constexpr long long kWriterLock = 0x6f70636572740001LL;  // "opcert" then 1

// libpq's messages run over several lines (ERROR, LINE, a caret, DETAIL): one line, "; " between.
std::string one_line(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '\n') {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      if (!out.empty() && out.back() != ';') out += "; ";
    } else {
      out += ch;
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ';')) out.pop_back();
  return out;
}

// The store's SQL uses `?` as SQLite does; PostgreSQL numbers its parameters. Quoted text and
// identifiers are left alone.
std::string numbered_placeholders(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int next = 1;
  char quote = 0;
  for (char ch : sql) {
    if (quote) {
      if (ch == quote) quote = 0;
      out += ch;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
      out += ch;
    } else if (ch == '?') {
      out += '$' + std::to_string(next++);
    } else {
      out += ch;
    }
  }
  return out;
}

class PostgresConnection final : public SqlConnection {
 public:
  explicit PostgresConnection(PGconn* conn) : conn_(conn) {}
  ~PostgresConnection() override { PQfinish(conn_); }

  SqlDialect dialect() const override { return SqlDialect::kPostgres; }
  std::string describe() const override {
    const char* host = PQhost(conn_);
    return fmt::format("PostgreSQL database {} on {}", PQdb(conn_), host ? host : "?");
  }

  void execute_script(const std::string& sql) override {
    PGresult* res = PQexec(conn_, sql.c_str());
    check(res, sql);
    PQclear(res);
  }

  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      const SqlValue& v = params[i];
      if (std::holds_alternative<std::monostate>(v)) continue;
      if (const auto* n = std::get_if<int64_t>(&v))
        texts[i] = std::to_string(*n);
      else if (const auto* d = std::get_if<double>(&v))
        texts[i] = fmt::format("{:.17g}", *d);  // round-trips the double
      else
        texts[i] = std::get<std::string>(v);
      values[i] = texts[i].c_str();
    }
    PGresult* res = PQexecParams(conn_, numbered_placeholders(sql).c_str(), static_cast<int>(params.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0);
    check(res, sql);
    std::vector<SqlRow> rows;
    const int n_rows = PQntuples(res), n_cols = PQnfields(res);
    for (int r = 0; r < n_rows; ++r) {
      SqlRow row;
      for (int c = 0; c < n_cols; ++c) row.push_back(value(res, r, c));
      rows.push_back(std::move(row));
    }
    PQclear(res);
    return rows;
  }

  void begin_write() override {
    execute_script("BEGIN");
    try {
      query("SELECT pg_advisory_xact_lock(" + std::to_string(kWriterLock) + ")", {});
    } catch (...) {
      rollback();
      throw;
    }
  }
  void begin_read() override { execute_script("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); }
  void commit() override { execute_script("COMMIT"); }
  void rollback() noexcept override {
    PGresult* res = PQexec(conn_, "ROLLBACK");
    PQclear(res);
  }

 private:
  void check(PGresult* res, const std::string& sql) {
    const ExecStatusType status = PQresultStatus(res);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
    std::string why = one_line(PQresultErrorMessage(res));
    if (why.empty()) why = one_line(PQerrorMessage(conn_));
    PQclear(res);
    const auto first_line = sql.substr(0, sql.find('\n'));
    throw StoreError(fmt::format("{}: {} (in: {})", describe(), why, first_line));
  }

  static SqlValue value(PGresult* res, int r, int c) {
    if (PQgetisnull(res, r, c)) return std::monostate{};
    const std::string text(PQgetvalue(res, r, c), static_cast<size_t>(PQgetlength(res, r, c)));
    switch (PQftype(res, c)) {
      case kBoolOid: return int64_t{text == "t" ? 1 : 0};
      case kInt2Oid:
      case kInt4Oid:
      case kInt8Oid: return static_cast<int64_t>(std::strtoll(text.c_str(), nullptr, 10));
      case kFloat4Oid:
      case kFloat8Oid:
      case kNumericOid: return std::strtod(text.c_str(), nullptr);
      default: return text;
    }
  }

  PGconn* conn_;
};

}  // namespace

bool postgres_available() { return true; }

std::unique_ptr<SqlConnection> open_postgres(const std::string& url) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string why = conn ? one_line(PQerrorMessage(conn)) : "out of memory";
    PQfinish(conn);
    // libpq's own words never hold the password; the URL does.
    throw InputError(fmt::format("cannot connect to the results store '{}': {}", redacted_url(url), why));
  }
  auto connection = std::make_unique<PostgresConnection>(conn);
  // Notices ("relation already exists, skipping") are the server talking to itself.
  connection->execute_script("SET client_min_messages = warning");
  return connection;
}

#else

bool postgres_available() { return false; }

std::unique_ptr<SqlConnection> open_postgres(const std::string& url) {
  throw InputError(fmt::format("'{}': this opcert was built without libpq; install libpq-dev and rebuild to keep "
                               "history on PostgreSQL",
                               redacted_url(url)));
}

#endif

}  // namespace opcert
