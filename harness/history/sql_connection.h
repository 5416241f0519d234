// One interface over the two databases the results store runs on: SQLite (a file, the default) and
// PostgreSQL (a server a team shares). The store writes one SQL text for both; the connection
// maps what differs (placeholders, the identity column, how a writer takes the lock).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace opcert {

/// A value bound to a statement or read from a row: NULL, an integer, a real or text.
using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;

enum class SqlDialect { kSqlite, kPostgres };

/// A failure of the database itself (a lost connection, a full disk, a constraint): the message
/// names the store and the database's own words.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;

  virtual SqlDialect dialect() const = 0;
  /// "SQLite file history.db", "PostgreSQL database opcert on /tmp/pg": for messages.
  virtual std::string describe() const = 0;

  /// Runs a script of several statements without parameters (the migrations).
  virtual void execute_script(const std::string& sql) = 0;
  /// Runs one statement with `?` placeholders bound in order; returns its rows (none for most
  /// writes; `RETURNING` gives them). Throws StoreError.
  virtual std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;

  /// Starts a transaction that writes: writers of one store take turns (SQLite: BEGIN IMMEDIATE,
  /// waiting out a busy file; PostgreSQL: a transaction-scoped advisory lock), so two CI jobs adding
  /// runs at once neither lose nor duplicate one.
  virtual void begin_write() = 0;
  /// Starts a transaction that only reads: one consistent view of the store.
  virtual void begin_read() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
};

/// A transaction that rolls back unless committed: a failure halfway through adding a run leaves
/// the store as it was.
class SqlTransaction {
 public:
  enum class Kind { kRead, kWrite };
  SqlTransaction(SqlConnection& connection, Kind kind);
  ~SqlTransaction();
  SqlTransaction(const SqlTransaction&) = delete;
  SqlTransaction& operator=(const SqlTransaction&) = delete;
  void commit();

 private:
  SqlConnection& connection_;
  bool open_ = true;
};

/// Reading a row's values: NULL is empty; an integer column may come back as a real and the other
/// way round (SQLite keeps what was stored), text as text.
std::optional<int64_t> sql_int(const SqlValue& v);
std::optional<double> sql_real(const SqlValue& v);
std::string sql_text(const SqlValue& v);
/// An optional as a bound value: empty binds NULL.
SqlValue sql_nullable(const std::optional<double>& v);
SqlValue sql_nullable(const std::optional<int64_t>& v);

}  // namespace opcert
