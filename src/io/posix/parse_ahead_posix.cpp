#include "io/posix/parse_ahead_posix.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/watch/parse_share.hpp"
#include "io/posix/pipe_child_posix.hpp"

namespace aaw {
namespace {

// Commits the helper is given ahead of the replay. The summaries it made for them wait here until
// the replay reaches them: this bounds the memory they take.
constexpr std::size_t k_window = 64;
// How long the replay waits for a summary the helper is making right now before it parses the
// module itself: more than the largest modules take to parse. Any other summary that has not
// arrived, the replay parses at once, and claims it so that the helper skips it.
constexpr auto k_wait_for_current = std::chrono::milliseconds(250);
// How often the replay's share of the parsing is balanced against the helper's (ParseShare).
constexpr auto k_balance_step = std::chrono::milliseconds(100);
// A helper that was given commits and sent nothing for this long is stopped.
constexpr auto k_silence_limit = std::chrono::seconds(10);
// A helper that stopped helping is started again for the next range of commits (a daemon runs for
// months, and one helper killed for its memory must not leave every later replay on one core),
// unless this many in a row did: then whatever stops them will stop the next one too.
constexpr int k_failures_in_a_row = 3;

class ParseAhead final : public SummaryPrefetch {
 public:
  ParseAhead(std::filesystem::path program, std::filesystem::path repository)
      : m_program(std::move(program)), m_repository(std::move(repository)) {}
  ~ParseAhead() override { stop(); }
  ParseAhead(const ParseAhead&) = delete;
  ParseAhead& operator=(const ParseAhead&) = delete;

  void expect(const std::optional<ObjectId>& from, const std::vector<ObjectId>& commits) override {
    if (helped()) m_failures_in_a_row = 0;  // the helper of the range before helped to its end
    if (!start() || !check()) return;
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < commits.size(); ++i) index.emplace(commits[i].hex, i);
    m_expected = commits;
    m_reached = m_given = m_told_reached = 0;
    m_at_expected = false;
    {
      const std::lock_guard lock(m_mutex);
      m_index = std::move(index);
      m_working_on = 0;
      m_made_for.clear();
    }
    if (from) send("base " + from->hex + "\n");
    top_up();
  }

  void rest() override {
    if (helped()) m_failures_in_a_row = 0;
    stop();
    const std::lock_guard lock(m_mutex);
    m_made_for.clear();
    m_reader_failure.clear();
  }

  void watch(const std::vector<std::string>& paths) override {
    for (const std::string& path : paths) {
      if (!m_watched.insert(path).second) continue;
      if (m_child.pid > 0) send("watch " + path + "\n");
    }
  }

  void reach(const ObjectId& commit) override {
    if (!check()) return;
    auto at = m_index.find(commit.hex);
    m_at_expected = at != m_index.end() && at->second >= m_reached;
    if (!m_at_expected) return;
    m_reached = at->second;
    {
      const std::lock_guard lock(m_mutex);
      for (auto it = m_made_for.begin(); it != m_made_for.end();)
        it = it->second.first < m_reached ? m_made_for.erase(it) : std::next(it);
    }
    balance();
    top_up();
    tell_if_behind();
  }

  std::optional<PickledSummary> take(const ObjectId& blob) override {
    std::unique_lock lock(m_mutex);
    auto found = m_made_for.find(blob.hex);
    const bool helping = m_at_expected && m_reader_failure.empty() && m_child.pid > 0;
    if (found == m_made_for.end() && helping && m_working_on == m_reached && m_parsing == blob.hex) {
      // The helper is parsing this very module: it is done sooner than a parse here would be.
      const bool settled = m_arrived.wait_for(lock, k_wait_for_current, [&] {
        return m_made_for.contains(blob.hex) || m_parsing != blob.hex || !m_reader_failure.empty();
      });
      if (!settled && std::chrono::steady_clock::now() - m_last_reply > k_silence_limit)
        m_reader_failure = "it sent nothing for " + std::to_string(k_silence_limit.count()) + " s";
      found = m_made_for.find(blob.hex);
    }
    if (found == m_made_for.end()) {
      // Parsed here: the helper, at this commit or still before it, leaves this blob alone.
      const bool claim = helping && m_working_on <= m_reached;
      lock.unlock();
      if (claim) send("mine " + blob.hex + "\n");
      return std::nullopt;
    }
    PickledSummary summary = std::move(found->second.second);
    m_made_for.erase(found);
    ++m_taken;
    return summary;
  }

  std::int64_t made() const override {
    const std::lock_guard lock(m_mutex);
    return m_made;
  }
  std::int64_t taken() const override { return m_taken; }
  std::string failure() const override { return m_failure; }
  std::int64_t peak_rss_kb() const override {
    return std::max(m_peak_rss_kb, m_child.pid > 0 ? detail::peak_rss_kb(m_child.pid) : 0);
  }

 private:
  // Starts the helper, unless one runs or too many in a row stopped helping.
  bool start() {
    if (m_child.pid > 0) return true;
    if (m_failures_in_a_row >= k_failures_in_a_row) return false;
    {
      const std::lock_guard lock(m_mutex);
      m_reader_failure.clear();  // the reply stream of the helper before
    }
    auto child = detail::spawn_pipe_child(m_program, {"__summaries", m_repository.string()},
                                          "the process that parses ahead");
    if (!child) {
      record_failure(child.error().message());
      return false;
    }
    m_child = std::move(*child);
    m_made_at_start = made();
    m_last_reply = std::chrono::steady_clock::now();
    m_reader = std::thread([this] { read_replies(); });
    for (const std::string& path : m_watched) send("watch " + path + "\n");
    if (m_share.share() > 0) send("share " + std::to_string(m_share.share()) + "\n");
    m_balancing = ::clock_getcpuclockid(m_child.pid, &m_helper_clock) == 0;
    m_step = busy_now();
    return m_child.pid > 0;
  }

  // Where the two processes' CPU time and the wall clock were at the start of a step.
  struct Busy {
    std::chrono::steady_clock::time_point wall;
    double replay = 0;
    double helper = 0;
  };

  Busy busy_now() const {
    auto seconds = [](clockid_t clock) {
      timespec time{};
      return ::clock_gettime(clock, &time) == 0 ? static_cast<double>(time.tv_sec) + time.tv_nsec * 1e-9
                                                : 0.0;
    };
    return {std::chrono::steady_clock::now(), seconds(CLOCK_PROCESS_CPUTIME_ID),
            m_balancing ? seconds(m_helper_clock) : 0.0};
  }

  // Once a step: moves the replay's share of the parsing towards the idler process, and tells the
  // helper when it moved (ParseShare).
  void balance() {
    if (!m_balancing || std::chrono::steady_clock::now() - m_step.wall < k_balance_step) return;
    const Busy now = busy_now();
    const double wall = std::chrono::duration<double>(now.wall - m_step.wall).count();
    const bool moved =
        m_share.balance((now.replay - m_step.replay) / wall, (now.helper - m_step.helper) / wall);
    m_step = now;
    if (moved) send("share " + std::to_string(m_share.share()) + "\n");
  }

  // Whether the helper still helps; stops it when the reader found it gone or unreadable.
  bool check() {
    if (m_child.pid <= 0) return false;
    std::string ended;
    {
      const std::lock_guard lock(m_mutex);
      ended = m_reader_failure;
    }
    if (ended.empty()) return true;
    fail(ended);
    return false;
  }

  // Gives the helper the commits up to a window past the one reached.
  void top_up() {
    const std::size_t target = std::min(m_expected.size(), m_reached + k_window);
    if (m_child.pid <= 0 || m_given >= target) return;
    {
      // A helper that had nothing to do was silent for good reason: its silence counts from now.
      const std::lock_guard lock(m_mutex);
      if (m_working_on >= m_given) m_last_reply = std::chrono::steady_clock::now();
    }
    while (m_child.pid > 0 && m_given < target) send("commit " + m_expected[m_given++].hex + "\n");
  }

  // A helper behind the replay parses what the replay has parsed itself already: it is told to
  // leave those commits and come to the replay's (every few commits at most, after top_up(), so
  // that the commit was given to it before).
  void tell_if_behind() {
    {
      const std::lock_guard lock(m_mutex);
      if (m_working_on >= m_reached) return;
    }
    if (m_reached < m_told_reached + k_window / 8 && m_told_reached > 0) return;
    m_told_reached = m_reached;
    send("reached " + m_expected[m_reached].hex + "\n");
  }

  void send(const std::string& line) {
    if (!detail::write_to_child(m_child.input.get(), line)) fail("it stopped reading");
  }

  // The reader thread: reads the helper's replies as they come, so that it never waits for the
  // replay to read them (the window bounds what they take), until it ends.
  void read_replies() {
    std::string pending;  // read, not yet taken apart
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::read(m_child.output.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      const std::lock_guard lock(m_mutex);
      if (n <= 0) {
        if (m_reader_failure.empty()) m_reader_failure = "it ended";
        m_arrived.notify_all();
        return;
      }
      pending.append(buffer, static_cast<std::size_t>(n));
      m_last_reply = std::chrono::steady_clock::now();
      if (!parse(pending)) {
        m_reader_failure = "it sent an unreadable line";
        m_arrived.notify_all();
        return;
      }
      m_arrived.notify_all();
    }
  }

  // Takes the complete replies off `pending` (REQUIRES: m_mutex held); false on one it cannot read.
  bool parse(std::string& pending) {
    std::size_t at = 0;
    for (;;) {
      const auto end = pending.find('\n', at);
      if (end == std::string::npos) break;
      const std::string_view line(pending.data() + at, end - at);
      if (line.starts_with("done ")) {
        auto index = m_index.find(std::string(line.substr(5)));
        if (index != m_index.end()) m_working_on = index->second + 1;
        m_parsing.clear();
        at = end + 1;
        continue;
      }
      if (line.starts_with("parsing ")) {
        m_parsing = line.substr(8);
        at = end + 1;
        continue;
      }
      auto header = summary_header(line);
      if (!header) return false;
      const auto& [blob, characters, size] = *header;
      if (pending.size() - (end + 1) < size) break;  // the rest of that pickle is still on its way
      m_parsing.clear();
      m_made_for[blob] = {m_working_on, PickledSummary{pending.substr(end + 1, size), characters}};
      ++m_made;
      at = end + 1 + size;
    }
    pending.erase(0, at);
    return true;
  }

  struct Header {
    std::string blob;
    std::int64_t characters;
    std::size_t size;
  };
  // "summary BLOB CHARACTERS SIZE".
  static std::optional<Header> summary_header(std::string_view line) {
    if (!line.starts_with("summary ")) return std::nullopt;
    line.remove_prefix(8);
    const auto space = line.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    Header header{std::string(line.substr(0, space)), 0, 0};
    line.remove_prefix(space + 1);
    const auto second = line.find(' ');
    if (second == std::string_view::npos) return std::nullopt;
    auto [p1, e1] = std::from_chars(line.data(), line.data() + second, header.characters);
    auto [p2, e2] = std::from_chars(line.data() + second + 1, line.data() + line.size(), header.size);
    if (e1 != std::errc() || e2 != std::errc() || p2 != line.data() + line.size()) return std::nullopt;
    return header;
  }

  void fail(const std::string& why) {
    record_failure("the process that parses ahead stopped helping: " + why);
    stop();
    const std::lock_guard lock(m_mutex);
    m_made_for.clear();
  }

  void record_failure(std::string why) {
    m_failure = std::move(why);
    if (++m_failures_in_a_row == 1) return;
    m_failure += " (" + std::to_string(m_failures_in_a_row) + " in a row" +
                 (m_failures_in_a_row >= k_failures_in_a_row ? ": no more are started" : "") + ")";
  }

  // Whether the helper running helped: it is still there, readable (check() stops it when not),
  // and made summaries.
  bool helped() { return check() && made() > m_made_at_start; }

  // Kills it at once: whatever it was given and has not sent is of no use any more, and letting
  // it work through the commands still in its pipe (up to a window of commits) kept a replay of
  // one function waiting for half a second after its last commit. It holds nothing to save: it
  // only reads the mirror. Then the reader thread sees its stdout end.
  void stop() {
    if (m_child.pid <= 0) return;
    m_peak_rss_kb = peak_rss_kb();  // while it is there to read
    m_child.input.reset();
    ::kill(m_child.pid, SIGKILL);
    detail::reap(m_child.pid);
    if (m_reader.joinable()) m_reader.join();
    m_child = {};
  }

  std::filesystem::path m_program;
  std::filesystem::path m_repository;
  detail::PipeChild m_child;
  std::string m_failure;             // why the last helper stopped helping
  int m_failures_in_a_row = 0;       // helpers that stopped helping since one helped to the end of its range
  std::int64_t m_made_at_start = 0;  // made() when the helper running started
  std::int64_t m_peak_rss_kb = 0;    // the largest peak of the helpers stopped
  std::unordered_set<std::string> m_watched;
  std::vector<ObjectId> m_expected;
  std::size_t m_reached = 0;       // the expected commit the replay is at
  bool m_at_expected = false;      // whether the replay is at an expected commit (the last reach())
  std::size_t m_given = 0;         // expected commits given to the helper
  std::size_t m_told_reached = 0;  // the expected commit the helper was last told the replay reached
  std::thread m_reader;
  // What the reader thread shares with the replay's: the replies taken apart, and why it stopped.
  mutable std::mutex m_mutex;
  std::condition_variable m_arrived;                     // a reply came, or the reader stopped
  std::unordered_map<std::string, std::size_t> m_index;  // of each expected commit (written under m_mutex)
  std::size_t m_working_on = 0;  // the expected commit the helper's next replies are for
  std::string m_parsing;         // the blob the helper is parsing, if any
  // Summaries made, by blob: the expected commit they were made for, and the summary.
  std::unordered_map<std::string, std::pair<std::size_t, PickledSummary>> m_made_for;
  std::int64_t m_made = 0;
  std::string m_reader_failure;
  std::chrono::steady_clock::time_point m_last_reply;  // when the helper last wrote anything
  std::int64_t m_taken = 0;
  // The replay's share of the parsing, and what balances it: the helper's CPU clock, and the
  // start of the current step.
  ParseShare m_share;
  bool m_balancing = false;
  clockid_t m_helper_clock{};
  Busy m_step;
};

}  // namespace

std::unique_ptr<SummaryPrefetch> make_parse_ahead(const std::filesystem::path& program,
                                                  const std::filesystem::path& repository) {
  return std::make_unique<ParseAhead>(program, repository);
}

bool parse_ahead_pays() { return std::thread::hardware_concurrency() > 1; }

}  // namespace aaw
