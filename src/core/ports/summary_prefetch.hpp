// Parsing ahead on the second core. A replay of a long history spends most of its time parsing the
// modules that changed (aaw_summary.summary_of); a second process walks the commits the replay
// will reach, parses the watched files that changed at each, and sends their summaries pickled.
// The main interpreter adopts one instead of parsing when it needs that blob
// (StaticExtractor's read_skeleton), and parses itself whatever did not arrive in time, so the
// result never depends on the helper: it only moves work to another core.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ports/source_tree.hpp"

namespace aaw {

// A module summary made ahead: aaw_summary's pickle of it, and the characters of source it was
// made from (what its place in the parsed-module cache is charged).
struct PickledSummary {
  std::string pickled;
  std::int64_t characters = 0;
};

class SummaryPrefetch {
 public:
  virtual ~SummaryPrefetch() = default;

  // The commits the replay will reach next, in order, after `from` (the one it is at, when any):
  // they replace those expected before.
  virtual void expect(const std::optional<ObjectId>& from, const std::vector<ObjectId>& commits) = 0;
  // Stops the helper until the next expect(): a daemon waiting between polls keeps no second
  // interpreter.
  virtual void rest() = 0;
  // Files (paths in the tree) to parse ahead wherever they change; added to those named before.
  virtual void watch(const std::vector<std::string>& paths) = 0;
  // The replay is at `commit`: summaries made for commits before it are dropped, and the helper is
  // given the next commits to keep ahead. Never waits for the helper.
  virtual void reach(const ObjectId& commit) = 0;
  // The summary of `blob` made ahead, taken out; nullopt when none has arrived.
  virtual std::optional<PickledSummary> take(const ObjectId& blob) = 0;

  // Summaries the helper made, and how many of them were taken.
  virtual std::int64_t made() const = 0;
  virtual std::int64_t taken() const = 0;
  // The largest peak resident memory of a helper so far, in KiB (0 when none ran, or where it
  // cannot be read): the daemon's own peak says nothing of the second process.
  virtual std::int64_t peak_rss_kb() const = 0;
  // Why the last helper that stopped helping did (it could not start, died, or sent garbage); empty
  // when none has. Another is started for the next range of commits (expect()), until three in a
  // row stopped helping.
  virtual std::string failure() const = 0;
};

}  // namespace aaw
