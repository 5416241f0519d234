// The store's schema as a list of migrations, each a version and the SQL that takes the schema
// there from the one before. Opening a store applies the ones it lacks, in order, in one
// transaction each; the store records each applied version, so an older store is brought up to
// date and a newer one (written by a later opcert) is refused rather than misread.
#pragma once

#include <string>
#include <vector>

#include "history/sql_connection.h"
#include "model/input_error.h"

namespace opcert {

struct Migration {
  int version = 0;          ///< 1, 2, ...: each one more than the last
  std::string description;  ///< one line: what it adds
  /// The SQL, in the subset both databases read; {{id}} stands for an auto-numbered primary key.
  std::string sql;
};

/// opcert's migrations, oldest first: docs/HISTORY.md describes the schema they build.
const std::vector<Migration>& store_migrations();

/// Whether the database holds any table (an opcert store's, or another program's).
bool has_other_tables(SqlConnection& connection);

/// The one-line refusal of a database that holds tables but is no opcert store.
InputError foreign_database(SqlConnection& connection);

/// The version the store is at (0 for an empty database).
int schema_version(SqlConnection& connection);

/// Brings the store to the last of `migrations`, each in its own write transaction (a concurrent
/// opener waits, then finds it done). InputError (exit 2) when the store is at a version newer
/// than this opcert knows, or was not made by opcert (it has tables but no version). Returns the
/// version it is at.
int migrate(SqlConnection& connection, const std::vector<Migration>& migrations);

}  // namespace opcert
