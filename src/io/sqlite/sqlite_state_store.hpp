// The StateStore port on SQLite (src/io/sqlite/sqlite_state_store.cpp, sqlite_outbox.cpp).
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include "core/ports/state_store.hpp"

namespace aaw {

// Opens (creating and migrating as needed) the database at `path` for `repository_url`.
// invalid_input when the database records another repository URL ("state store '<path>' belongs
// to '<url>', not '<url>': use another state_dir"), or a schema newer than this binary knows;
// io when the file cannot be opened or is not a database.
Result<std::unique_ptr<StateStore>> open_state_store(const std::filesystem::path& path,
                                                     std::string_view repository_url);

// Opens the existing database at `path` for reading only (`status`, `history`, `show`): nothing is
// created, migrated or written, so a read-only state_dir (a read-only mount, another user's files)
// can be queried. Writes through the store fail (io). nullptr for a database that holds no table
// yet (a daemon starting for the first time has created the file and not committed its schema):
// nothing is recorded there. invalid_input for another repository's store,
// or one whose schema is older than this binary's (it cannot be migrated without writing); io when
// the file cannot be read or is not a database.
Result<std::unique_ptr<StateStore>> open_state_store_read_only(const std::filesystem::path& path,
                                                               std::string_view repository_url);

}  // namespace aaw
