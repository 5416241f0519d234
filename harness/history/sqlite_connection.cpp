#include "history/sqlite_connection.h"

#include <fmt/format.h>

#include "model/input_error.h"

#if OPCERT_HAVE_SQLITE
#include <sqlite3.h>

#include <map>
#endif

namespace opcert {

#if OPCERT_HAVE_SQLITE
namespace {

// A writer waits this long for another's transaction (a CI job adding its run) before failing.
constexpr int kBusyTimeoutMs = 60'000;

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
  }

  SqlDialect dialect() const override { return SqlDialect::kSqlite; }
  std::string describe() const override { return fmt::format("SQLite file {}", path_); }

  void execute_script(const std::string& sql) override {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string why = message ? message : sqlite3_errmsg(db_);
      sqlite3_free(message);
      throw StoreError(fmt::format("{}: {}", describe(), why));
    }
  }

  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* stmt = prepared(sql);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    for (size_t i = 0; i < params.size(); ++i) bind(stmt, static_cast<int>(i + 1), params[i]);
    std::vector<SqlRow> rows;
    for (;;) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        const std::string why = sqlite3_errmsg(db_);
        sqlite3_reset(stmt);
        throw StoreError(fmt::format("{}: {}", describe(), why));
      }
      SqlRow row;
      const int n = sqlite3_column_count(stmt);
      for (int c = 0; c < n; ++c) row.push_back(column(stmt, c));
      rows.push_back(std::move(row));
    }
    sqlite3_reset(stmt);
    return rows;
  }

  // IMMEDIATE takes the write lock at once: two writers never both read, then both try to write.
  void begin_write() override { execute_script("BEGIN IMMEDIATE"); }
  void begin_read() override { execute_script("BEGIN"); }
  void commit() override { execute_script("COMMIT"); }
  void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

 private:
  sqlite3_stmt* prepared(const std::string& sql) {
    if (const auto it = statements_.find(sql); it != statements_.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK)
      throw StoreError(fmt::format("{}: {} (in: {})", describe(), sqlite3_errmsg(db_), sql));
    statements_.emplace(sql, stmt);
    return stmt;
  }

  void bind(sqlite3_stmt* stmt, int index, const SqlValue& v) {
    int rc = SQLITE_OK;
    if (std::holds_alternative<std::monostate>(v))
      rc = sqlite3_bind_null(stmt, index);
    else if (const auto* i = std::get_if<int64_t>(&v))
      rc = sqlite3_bind_int64(stmt, index, *i);
    else if (const auto* d = std::get_if<double>(&v))
      rc = sqlite3_bind_double(stmt, index, *d);
    else {
      const std::string& s = std::get<std::string>(v);
      rc = sqlite3_bind_text64(stmt, index, s.data(), s.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    }
    if (rc != SQLITE_OK) throw StoreError(fmt::format("{}: {}", describe(), sqlite3_errmsg(db_)));
  }

  static SqlValue column(sqlite3_stmt* stmt, int c) {
    switch (sqlite3_column_type(stmt, c)) {
      case SQLITE_INTEGER: return static_cast<int64_t>(sqlite3_column_int64(stmt, c));
      case SQLITE_FLOAT: return sqlite3_column_double(stmt, c);
      case SQLITE_NULL: return std::monostate{};
      default: {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        return std::string(text ? text : "", static_cast<size_t>(sqlite3_column_bytes(stmt, c)));
      }
    }
  }

  sqlite3* db_;
  std::string path_;
  std::map<std::string, sqlite3_stmt*> statements_;
};

}  // namespace

std::unique_ptr<SqlConnection> open_sqlite(const std::filesystem::path& path, bool create) {
  std::error_code ec;
  if (!create && !std::filesystem::exists(path, ec))
    throw InputError(fmt::format("no results store at '{}': add runs to it first (`opcert history add RUN --db {}`)",
                                 path.string(), path.string()));
  if (create && path.has_parent_path() && !std::filesystem::exists(path.parent_path(), ec))
    throw InputError(fmt::format("cannot create the results store '{}': its directory does not exist", path.string()));
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    throw InputError(fmt::format("cannot open the results store '{}': {}", path.string(), why));
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  sqlite3_extended_result_codes(db, 1);
  auto connection = std::make_unique<SqliteConnection>(db, path.string());
  try {
    // A file that is not a database fails here, on its first read. WAL (readers beside a writer)
    // is set by writers only: it is kept in the file, and a reader writes nothing.
    connection->execute_script("PRAGMA foreign_keys = ON");
    (void)connection->query("SELECT count(*) FROM sqlite_master", {});
    if (create) connection->execute_script("PRAGMA journal_mode = WAL");
  } catch (const StoreError& e) {
    throw InputError(fmt::format("cannot open the results store '{}' ({}): give a store opcert made, on a writable "
                                 "file system",
                                 path.string(), e.what()));
  }
  return connection;
}

#else

std::unique_ptr<SqlConnection> open_sqlite(const std::filesystem::path& path, bool) {
  throw InputError(fmt::format("'{}': this opcert was built without SQLite; install libsqlite3-dev and rebuild, or "
                               "give a postgresql:// store",
                               path.string()));
}

#endif

}  // namespace opcert
