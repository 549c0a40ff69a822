// The StateStore port on SQLite (src/io/sqlite_state_store.cpp, sqlite_outbox.cpp).
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include "aaw/core/state_store.hpp"

namespace aaw {

// Opens (creating and migrating as needed) the database at `path` for `repository_url`.
// invalid_input when the database records another repository URL ("state store '<path>' belongs
// to '<url>', not '<url>': use another state_dir"), or a schema newer than this binary knows;
// io when the file cannot be opened or is not a database.
Result<std::unique_ptr<StateStore>> open_state_store(const std::filesystem::path& path,
                                                     std::string_view repository_url);

}  // namespace aaw
