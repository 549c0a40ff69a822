// How the parsing of the modules that change is shared between a replay and the helper that parses
// ahead for it (summary_prefetch.hpp). The helper's work is mostly parsing; the replay's is what
// the helper did not parse, and everything else (outlines, digests, resolutions, the store). The
// two are even when each keeps its core as busy as the other: when the helper is the busier, the
// replay sits waiting for it, and takes a share of the parsing itself (the files whose paths fall
// in its share of buckets, which the helper then skips, and the replay parses since nothing was
// made for them); when the replay is the busier (many functions to resolve), its share falls back,
// to none. Shared by path, not by blob: each process keeps the function bodies it checked, and the
// versions of one file share most of theirs.
#pragma once

#include <string_view>

namespace aaw {

class ParseShare {
 public:
  // Paths fall into this many buckets; the replay's share is a number of them, at most half.
  static constexpr int k_buckets = 16;
  static constexpr int k_most = k_buckets / 2;
  // How much busier one side must be than the other (a fraction of the time) to move the share.
  static constexpr double k_margin = 0.1;

  // Whether, at `share`, the replay parses the file at `path` itself (and the helper skips it).
  static bool replay_parses(std::string_view path, int share);

  int share() const { return m_share; }

  // Over the last stretch of time, the fraction of it the replay's process and the helper's were
  // busy on a core. Moves the share by one towards the idler side; true when it moved.
  bool balance(double replay_busy, double helper_busy);

 private:
  int m_share = 0;
};

}  // namespace aaw
