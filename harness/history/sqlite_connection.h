// The results store in a SQLite file (libsqlite3): the embedded default of `--db FILE`.
#pragma once

#include <filesystem>
#include <memory>

#include "history/sql_connection.h"

namespace opcert {

/// InputError when this opcert was built without SQLite (OPCERT_WITH_SQLITE).
/// Opens (creating when `create` is set) the SQLite file at `path`, with foreign keys on, a busy
/// timeout long enough for another writer's transaction to finish, and (writers) WAL journaling.
/// InputError (exit 2) when the file does not exist and `create` is off, or is not a database.
std::unique_ptr<SqlConnection> open_sqlite(const std::filesystem::path& path, bool create);

}  // namespace opcert
