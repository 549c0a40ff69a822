// The process that parses ahead (summary_prefetch.hpp), its own side: it walks the commits it is
// given, and at each one parses the watched files that changed since the one before, once per
// blob, sending each summary pickled. Run as `aiter-api-watcher __summaries REPOSITORY`.
//
// Commands, one per line on `in`, run in turn:
//   base COMMIT    where the walk starts: its files are known, nothing is parsed
//   watch PATH     a file to parse wherever it changes (from the commit the walk is at)
//   commit COMMIT  the next commit: parse what changed, then report it done
// except what the main process parses itself, which counts as soon as it is read (between two
// parses):
//   mine BLOB      it parses this blob: skip it unless it is begun
//   share K        it parses the files of its share K (ParseShare): skip them from now on
//   reached COMMIT it is at that commit, ahead of the walk: leave the commits before it (and the
//                  rest of the one being parsed) and go on from there
// Replies on `out`, each flushed:
//   parsing BLOB\n (before each parse)
//   summary BLOB CHARACTERS SIZE\n then SIZE bytes of aaw_summary's pickle
//   done COMMIT\n
// A commit or file that cannot be read is skipped (the main process parses what it needs itself).
#pragma once

#include <ostream>

#include "core/ports/git_mirror.hpp"
#include "core/ports/line_input.hpp"
#include "extract/static/static_extractor.hpp"

namespace aaw {

// Serves commands until `in` ends; returns the process exit code (0, or 2 for a command it cannot
// read, or when `out` cannot be written).
int run_summary_worker(GitMirror& repository, StaticExtractor& extractor, LineInput& in, std::ostream& out);

}  // namespace aaw
