// The results store on a PostgreSQL server (libpq): `--db postgresql://...`, for a team whose CI
// jobs on several machines add runs to one history.
#pragma once

#include <memory>
#include <string>

#include "history/sql_connection.h"

namespace opcert {

/// `url` with its password, in the authority (user:secret@) or a parameter (?password=secret),
/// replaced by "***": what messages print.
std::string redacted_url(const std::string& url);

/// Whether this build has libpq (else a postgresql:// store is refused with what to install).
bool postgres_available();

/// Connects to the server the URL names (libpq's connection URI: postgresql://user@host:port/db,
/// with ?host=/run/dir for a Unix socket). InputError (exit 2) naming the server when the
/// connection is refused or this build has no libpq.
std::unique_ptr<SqlConnection> open_postgres(const std::string& url);

}  // namespace opcert
