// The SummaryPrefetch port on a helper process (`PROGRAM __summaries REPOSITORY`, whose side is
// src/extract/static/summary_worker.hpp), started at the first expect(). It is given commits a
// window ahead of the replay and its replies are read whenever the replay asks, without ever
// waiting for it: what has not arrived is parsed in the daemon as before. When the helper cannot
// start, dies or sends what cannot be read, it is stopped and failure() says why.
#pragma once

#include <filesystem>
#include <memory>

#include "core/ports/summary_prefetch.hpp"

namespace aaw {

std::unique_ptr<SummaryPrefetch> make_parse_ahead(const std::filesystem::path& program,
                                                  const std::filesystem::path& repository);

// Whether parsing ahead can pay here: more than one CPU to run on.
bool parse_ahead_pays();

}  // namespace aaw
