#include "io/sqlite/sqlite_state_store.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "core/ports/state_store.hpp"
#include "io/sqlite/sqlite_outbox.hpp"
#include "notify/github_issue_channel.hpp"
#include "notify/webhook_channel.hpp"
#include "support/sample_values.hpp"
#include "support/state_store_contract.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace test {
namespace {

// The port's contract, the same suite the in-memory store runs (tests/core/ports/state_store_test.cpp).
struct SqliteStoreMaker {
  TempDir dir{"aaw-store-contract"};
  std::unique_ptr<StateStore> make() {
    auto store = open_state_store(dir.path() / "state.db", "https://example.com/pkg.git");
    EXPECT_TRUE(store) << store.error().message();
    return store ? std::move(*store) : nullptr;
  }
};

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, StateStoreContract, SqliteStoreMaker);

}  // namespace test

namespace {

using test::sha;

constexpr const char* k_url = "https://github.com/ROCm/aiter.git";

CommitInfo commit_info(int n) {
  CommitInfo info;
  info.id = sha(n);
  info.author_name = "Ada";
  info.author_email = "ada@example.com";
  info.author_time = 1700000000 + n;
  info.subject = "commit " + std::to_string(n);
  return info;
}

MonitoredFunction function(int n) { return {"import aiter", "aiter.f" + std::to_string(n)}; }

// "(p<n>)": an ok state whose text depends on n only.
SignatureState ok_state(int n) {
  Signature signature;
  signature.parameters.push_back(
      Parameter{"p" + std::to_string(n), ParameterKind::positional_or_keyword, {}, {}});
  return SignatureState::ok(signature);
}

Json change_json(const ObjectId& commit, const MonitoredFunction& f, std::string_view severity = "breaking") {
  return {{"commit", commit.hex},
          {"function_path", f.function_path},
          {"import_statement", f.import_statement},
          {"severity", severity},
          {"changes", Json::array()}};
}

Json event_json(const ObjectId& commit, const MonitoredFunction& f, std::string_view time = "t0") {
  return {{"type", "change"},
          {"time", time},
          {"commit", commit.hex},
          {"import_statement", f.import_statement},
          {"function_path", f.function_path}};
}

// A processed commit with `functions` functions, function i in state ok_state(i + variant).
CommitRecord processed(int n, int functions = 3, int variant = 0) {
  CommitRecord record;
  record.commit = commit_info(n);
  for (int i = 0; i < functions; ++i) record.states.push_back({function(i), ok_state(i + variant)});
  return record;
}

std::int64_t count_rows(const std::filesystem::path& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::int64_t count = -1;
  if (sqlite3_step(statement) == SQLITE_ROW) count = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return count;
}

std::string text_of(const std::filesystem::path& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::string text;
  if (sqlite3_step(statement) == SQLITE_ROW)
    text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return text;
}

// `shape` with 'd' for any digit; every other character must appear as is. (No std::regex: GCC 12
// warns inside it under the sanitizers.)
bool matches_shape(std::string_view text, std::string_view shape) {
  if (text.size() != shape.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    bool digit = text[i] >= '0' && text[i] <= '9';
    if (shape[i] == 'd' ? !digit : text[i] != shape[i]) return false;
  }
  return true;
}

class SqliteStateStoreTest : public ::testing::Test {
 protected:
  std::filesystem::path db_path() const { return m_dir / "state" / "state.db"; }

  std::unique_ptr<StateStore> open_store(std::string_view url = k_url) {
    auto store = open_state_store(db_path(), url);
    if (!store) {
      ADD_FAILURE() << store.error().message();
      return nullptr;
    }
    return std::move(*store);
  }

  void record(StateStore& store, const CommitRecord& record) {
    auto recorded = store.record(record);
    ASSERT_TRUE(recorded) << recorded.error().message();
  }

  test::TempDir m_dir{"aaw-store"};
};

TEST_F(SqliteStateStoreTest, CreatesSchemaAndKeepsDataAcrossReopen) {
  {
    auto store = open_store();
    ASSERT_TRUE(store);
    record(*store, processed(1));
    ASSERT_TRUE(store->set_value("remote_head", sha(1).hex));
  }
  auto store = open_store();
  ASSERT_TRUE(store);
  EXPECT_EQ(*store->commit_count(), 1);
  EXPECT_EQ(store->states_at(sha(1))->size(), 3u);
  EXPECT_EQ(*store->value("remote_head"), sha(1).hex);
  EXPECT_EQ(count_rows(db_path(), "PRAGMA user_version"), 5);
  EXPECT_EQ(text_of(db_path(), "PRAGMA journal_mode"), "wal");
}

TEST_F(SqliteStateStoreTest, RefusesAnotherRepositoryUrlNamingBoth) {
  ASSERT_TRUE(open_store());
  auto other = open_state_store(db_path(), "https://github.com/someone/fork.git");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code(), ErrorCode::invalid_input);
  EXPECT_EQ(other.error().message(),
            "state store '" + db_path().string() + "' belongs to '" + k_url +
                "', not 'https://github.com/someone/fork.git': use another state_dir");
}

TEST_F(SqliteStateStoreTest, StoresTheRepositoryUrlWithoutCredentials) {
  ASSERT_TRUE(open_store("https://user:secret@example.com/aiter.git"));
  EXPECT_EQ(text_of(db_path(), "SELECT group_concat(value) FROM meta").find("secret"), std::string::npos);
}

TEST_F(SqliteStateStoreTest, RefusesNewerSchemaVersion) {
  ASSERT_TRUE(open_store());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);

  auto store = open_state_store(db_path(), k_url);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(store.error().message().find(db_path().string()), std::string::npos) << store.error().message();
  EXPECT_NE(store.error().message().find("version 99"), std::string::npos) << store.error().message();
  EXPECT_NE(store.error().message().find("version 5 "), std::string::npos) << store.error().message();
}

TEST_F(SqliteStateStoreTest, RefusesFileThatIsNotADatabase) {
  std::filesystem::create_directories(db_path().parent_path());
  std::ofstream(db_path()) << "{\"not\": \"a database\"}\n" << std::string(4096, 'x');
  auto store = open_state_store(db_path(), k_url);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code(), ErrorCode::io);
  EXPECT_NE(store.error().message().find(db_path().string()), std::string::npos) << store.error().message();
}

TEST_F(SqliteStateStoreTest, StatesAtReturnsTheRecordedStatesInRecordOrder) {
  auto store = open_store();
  CommitRecord record;
  record.commit = commit_info(1);
  record.states = {{function(2), ok_state(7)},
                   {function(0), SignatureState::failed(Status::build_failed, "setup.py exited 1")},
                   {function(1), SignatureState::failed(Status::unresolved, "setattr(module, 'f', g)")}};
  this->record(*store, record);
  EXPECT_EQ(*store->states_at(sha(1)), record.states);
}

TEST_F(SqliteStateStoreTest, StatesAtOfUnknownCommitIsEmpty) {
  auto store = open_store();
  EXPECT_TRUE(store->states_at(sha(5))->empty());
}

TEST_F(SqliteStateStoreTest, StoresAStateSharedByManyCommitsOnce) {
  auto store = open_store();
  for (int n = 1; n <= 20; ++n) record(*store, processed(n, 3));
  EXPECT_EQ(count_rows(db_path(), "SELECT count(*) FROM states"), 3);
  EXPECT_EQ(count_rows(db_path(), "SELECT count(*) FROM commit_states"), 60);
}

TEST_F(SqliteStateStoreTest, ReRecordingACommitDuplicatesNothing) {
  auto store = open_store();
  CommitRecord record = processed(1);
  record.changes = {change_json(sha(1), function(0))};
  record.events = {event_json(sha(1), function(0), "t0")};
  this->record(*store, record);
  this->record(*store, processed(2));
  record.events = {event_json(sha(1), function(0), "t1")};  // a re-run stamps another time
  this->record(*store, record);

  EXPECT_EQ(*store->commit_count(), 2);
  EXPECT_EQ((*store->commit_status(sha(1)))->sequence, 1);
  EXPECT_EQ(store->history(std::nullopt)->size(), 1u);
  ASSERT_EQ(store->events_after(0)->size(), 1u);
  EXPECT_EQ((*store->events_after(0))[0].event["time"], "t0");
}

TEST_F(SqliteStateStoreTest, ReRecordingACommitReplacesItsStatesAndOutcome) {
  auto store = open_store();
  EXPECT_EQ(store->failed_commits()->count, 0);
  CommitRecord failed;
  failed.commit = commit_info(1);
  failed.outcome = CommitOutcome::failed;
  failed.error = "missing object";
  record(*store, failed);
  EXPECT_EQ(store->failed_commits()->count, 1);
  EXPECT_EQ(store->failed_commits()->last->commit, sha(1));
  EXPECT_EQ(store->failed_commits()->last->error, "missing object");
  record(*store, processed(2));
  record(*store, processed(1, 2, 5));

  auto status = *store->commit_status(sha(1));
  EXPECT_EQ(status->outcome, CommitOutcome::processed);
  EXPECT_EQ(status->error, "");
  EXPECT_EQ(store->failed_commits()->count, 0) << "processed since: no longer counted";
  EXPECT_EQ(status->sequence, 1);
  EXPECT_EQ(*store->states_at(sha(1)), processed(1, 2, 5).states);
}

TEST_F(SqliteStateStoreTest, ReRecordedChangeReplacesTheOldOneInPlace) {
  auto store = open_store();
  CommitRecord first = processed(1);
  first.changes = {change_json(sha(1), function(0), "breaking"), change_json(sha(1), function(1))};
  record(*store, first);
  first.changes = {change_json(sha(1), function(0), "compatible")};
  record(*store, first);

  auto history = *store->history(std::nullopt);
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0]["function_path"], function(0).function_path);
  EXPECT_EQ(history[0]["severity"], "compatible");
}

TEST_F(SqliteStateStoreTest, BaselineSkipsMachineryFailures) {
  auto store = open_store();
  record(*store, processed(1, 2));
  CommitRecord broken = processed(2, 2, 1);
  broken.states[0].state = SignatureState::failed(Status::build_failed, "build failed");
  broken.states[1].state = SignatureState::failed(Status::missing, "no such function");
  record(*store, broken);

  std::vector<FunctionState> expected = {{function(0), ok_state(0)}, broken.states[1]};
  EXPECT_EQ(*store->baseline(std::nullopt), expected);
}

TEST_F(SqliteStateStoreTest, BaselineLeavesOutFunctionsWithOnlyMachineryFailures) {
  auto store = open_store();
  CommitRecord broken = processed(1, 2);
  broken.states[1].state = SignatureState::failed(Status::import_error, "ImportError");
  record(*store, broken);
  std::vector<FunctionState> expected = {broken.states[0]};
  EXPECT_EQ(*store->baseline(std::nullopt), expected);
}

TEST_F(SqliteStateStoreTest, BaselineRespectsUpTo) {
  auto store = open_store();
  for (int n = 1; n <= 3; ++n) record(*store, processed(n, 2, n));
  EXPECT_EQ(*store->baseline(sha(2)), processed(2, 2, 2).states);
  EXPECT_EQ(*store->baseline(sha(3)), processed(3, 2, 3).states);
  EXPECT_EQ(*store->baseline(std::nullopt), processed(3, 2, 3).states);
}

// The baseline of the last commit is kept in memory and carried forward by each record: it must
// say what the database says, through failures, rewrites of earlier commits and a second reader.
TEST_F(SqliteStateStoreTest, BaselineCarriedForwardAgreesWithTheDatabase) {
  auto store = open_store();
  record(*store, processed(1, 3, 1));
  ASSERT_TRUE(store->baseline(sha(1)));  // from the database, then kept
  CommitRecord broken = processed(2, 3, 2);
  broken.states[0].state = SignatureState::failed(Status::build_failed, "build failed");
  record(*store, broken);
  std::vector<FunctionState> expected = {{function(0), ok_state(1)}, broken.states[1], broken.states[2]};
  EXPECT_EQ(*store->baseline(sha(2)), expected);
  record(*store, processed(3, 3, 3));
  EXPECT_EQ(*store->baseline(sha(3)), processed(3, 3, 3).states);
  EXPECT_EQ(*open_store()->baseline(sha(3)), processed(3, 3, 3).states);

  record(*store, processed(2, 3, 7));  // an earlier commit recorded again: the carried baseline goes
  EXPECT_EQ(*store->baseline(sha(2)), processed(2, 3, 7).states);
  EXPECT_EQ(*store->baseline(sha(3)), processed(3, 3, 3).states);
  CommitRecord failed;
  failed.commit = commit_info(4);
  failed.outcome = CommitOutcome::failed;
  failed.error = "missing object";
  record(*store, failed);  // a commit without states: the baseline there is the one before
  EXPECT_EQ(*store->baseline(sha(4)), processed(3, 3, 3).states);
  EXPECT_EQ(*open_store()->baseline(sha(4)), processed(3, 3, 3).states);
}

// A record's Since hint (the commit written just before, the positions that changed) spares the
// store looking up the others; what it records, and the baseline it carries, are what the same
// record without the hint gives. A hint from another commit than the one written last is ignored.
TEST_F(SqliteStateStoreTest, ARecordSinceTheLastOneRecordsWhatAFullOneWould) {
  auto store = open_store();
  record(*store, processed(1, 3, 1));
  ASSERT_TRUE(store->baseline(sha(1)));
  CommitRecord second = processed(2, 3, 1);
  second.states[1].state = SignatureState::failed(Status::build_failed, "build failed");
  second.since = CommitRecord::Since{sha(1), {1}};
  record(*store, second);
  EXPECT_EQ(*store->states_at(sha(2)), second.states);
  EXPECT_EQ(*store->baseline(sha(2)), processed(1, 3, 1).states) << "a failure is never a baseline";
  CommitRecord third = processed(3, 3, 1);
  third.states[2].state = ok_state(9);
  third.since = CommitRecord::Since{sha(2), {1, 2}};
  record(*store, third);
  EXPECT_EQ(*store->states_at(sha(3)), third.states);
  EXPECT_EQ(*store->baseline(sha(3)), third.states);
  EXPECT_EQ(*open_store()->baseline(sha(3)), third.states);
  CommitRecord stale = processed(4, 3, 4);
  stale.since = CommitRecord::Since{sha(1), {}};  // not the last written: the states are read
  record(*store, stale);
  EXPECT_EQ(*store->states_at(sha(4)), processed(4, 3, 4).states);
  EXPECT_EQ(*open_store()->states_at(sha(4)), processed(4, 3, 4).states);
}

// A new commit recorded right after the last one with a Since hint stores only its changed rows (a
// chain from a keyframe, a new keyframe every so often); every commit still reads back as all its
// states, the baseline is the same, and recording a commit of a chain again first gives every
// later commit of it all its rows, so none of them changes.
TEST_F(SqliteStateStoreTest, CommitsRecordedOneAfterAnotherStoreOnlyWhatChanged) {
  constexpr int functions = 5, commits = 300;
  std::vector<CommitRecord> records;
  {
    auto store = open_store();
    std::vector<FunctionState> states = processed(1, functions).states;
    for (int n = 1; n <= commits; ++n) {
      CommitRecord next = processed(n, functions);
      if (n > 1) next.since = CommitRecord::Since{sha(n - 1), {}};
      if (n > 1 && n % 7 == 0) {
        std::size_t position = static_cast<std::size_t>(n % functions);
        states[position].state =
            n % 21 == 0 ? SignatureState::failed(Status::build_failed, "x") : ok_state(n);
        next.since->changed.push_back(position);
      }
      next.states = states;
      record(*store, next);
      records.push_back(next);
    }
    for (int n : {1, 2, 7, 128, 129, 130, 200, 300})
      EXPECT_EQ(*store->states_at(sha(n)), records[n - 1].states) << n;
  }
  EXPECT_LT(count_rows(db_path(), "SELECT count(*) FROM commit_states"), 5 * functions + commits / 7 + 1);
  EXPECT_GT(count_rows(db_path(), "SELECT count(*) FROM commits WHERE keyframe IS NOT NULL"), 250);
  auto store = open_store();
  for (int n = 1; n <= commits; ++n) ASSERT_EQ(*store->states_at(sha(n)), records[n - 1].states) << n;
  std::vector<FunctionState> usable = records[0].states;
  for (int n = 1; n <= commits; ++n) {
    for (std::size_t i = 0; i < usable.size(); ++i)
      if (!is_machinery_failure(records[n - 1].states[i].state.status)) usable[i] = records[n - 1].states[i];
    if (n % 37 == 0 || n == commits) {
      ASSERT_EQ(*open_store()->baseline(sha(n)), usable) << n;
    }
  }
  CommitRecord again = processed(150, functions, 40);  // recorded again, with other states
  record(*store, again);
  EXPECT_EQ(*store->states_at(sha(150)), again.states);
  for (int n : {149, 151, 200, 256, 257, 300})
    EXPECT_EQ(*open_store()->states_at(sha(n)), records[n - 1].states) << n;
}

TEST_F(SqliteStateStoreTest, BaselineUpToAnUnrecordedCommitIsNotFound) {
  auto store = open_store();
  record(*store, processed(1));
  auto baseline = store->baseline(sha(9));
  ASSERT_FALSE(baseline);
  EXPECT_EQ(baseline.error().code(), ErrorCode::not_found);
}

TEST_F(SqliteStateStoreTest, LineHeadFollowsAdvancesLine) {
  auto store = open_store();
  EXPECT_EQ(*store->line_head(), std::nullopt);
  CommitRecord record = processed(1);
  record.advances_line = true;
  this->record(*store, record);
  this->record(*store, processed(2));  // a replayed commit off the line
  EXPECT_EQ(*store->line_head(), sha(1));
  record = processed(3);
  record.advances_line = true;
  this->record(*store, record);
  EXPECT_EQ(*store->line_head(), sha(3));
  this->record(*store, processed(1));  // replaying a line commit again does not move the head back
  EXPECT_EQ(*store->line_head(), sha(3));
}

TEST_F(SqliteStateStoreTest, HistoryIsInProcessingOrderThenRecordOrder) {
  auto store = open_store();
  CommitRecord later = processed(9);
  later.changes = {change_json(sha(9), function(1)), change_json(sha(9), function(0))};
  record(*store, later);
  CommitRecord earlier_sha = processed(2);
  earlier_sha.changes = {change_json(sha(2), function(0))};
  record(*store, earlier_sha);

  auto history = *store->history(std::nullopt);
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0]["commit"], sha(9).hex);
  EXPECT_EQ(history[0]["function_path"], function(1).function_path);
  EXPECT_EQ(history[1]["function_path"], function(0).function_path);
  EXPECT_EQ(history[2]["commit"], sha(2).hex);
}

TEST_F(SqliteStateStoreTest, HistoryFiltersByFunctionPath) {
  auto store = open_store();
  for (int n = 1; n <= 3; ++n) {
    CommitRecord record = processed(n);
    record.changes = {change_json(sha(n), function(0)), change_json(sha(n), function(1))};
    this->record(*store, record);
  }
  auto history = *store->history(function(1).function_path);
  ASSERT_EQ(history.size(), 3u);
  for (int n = 0; n < 3; ++n) {
    EXPECT_EQ(history[n]["function_path"], function(1).function_path);
    EXPECT_EQ(history[n]["commit"], sha(n + 1).hex);
  }
  EXPECT_TRUE(store->history("aiter.unknown")->empty());
}

TEST_F(SqliteStateStoreTest, EventsAfterReturnsLaterEventsOldestFirst) {
  auto store = open_store();
  for (int n = 1; n <= 3; ++n) {
    CommitRecord record = processed(n);
    record.events = {event_json(sha(n), function(0)), event_json(sha(n), function(1))};
    this->record(*store, record);
  }
  auto all = *store->events_after(0);
  ASSERT_EQ(all.size(), 6u);
  auto later = *store->events_after(all[1].id);
  ASSERT_EQ(later.size(), 4u);
  EXPECT_EQ(later[0].id, all[2].id);
  EXPECT_EQ(later[0].event, all[2].event);
  EXPECT_EQ(later[3].event["commit"], sha(3).hex);
  EXPECT_TRUE(store->events_after(all[5].id)->empty());
}

TEST_F(SqliteStateStoreTest, RecordsAFailedCommitWithItsError) {
  auto store = open_store();
  CommitRecord failed;
  failed.commit = commit_info(1);
  failed.outcome = CommitOutcome::failed;
  failed.error = "object 1234 is missing";
  record(*store, failed);

  auto status = *store->commit_status(sha(1));
  ASSERT_TRUE(status);
  EXPECT_EQ(status->commit, sha(1));
  EXPECT_EQ(status->outcome, CommitOutcome::failed);
  EXPECT_EQ(status->error, "object 1234 is missing");
  EXPECT_EQ(status->sequence, 1);
  EXPECT_TRUE(store->states_at(sha(1))->empty());
}

TEST_F(SqliteStateStoreTest, RecordedAtIsUtcIso8601) {
  auto store = open_store();
  record(*store, processed(1));
  std::string recorded_at = (*store->commit_status(sha(1)))->recorded_at;
  EXPECT_TRUE(matches_shape(recorded_at, "dddd-dd-ddTdd:dd:ddZ")) << recorded_at;
}

TEST_F(SqliteStateStoreTest, CommitStatusOfUnknownCommitIsEmpty) {
  auto store = open_store();
  EXPECT_EQ(*store->commit_status(sha(1)), std::nullopt);
}

TEST_F(SqliteStateStoreTest, FailedRecordLeavesNothingOfTheCommit) {
  auto store = open_store();
  record(*store, processed(1));
  CommitRecord bad = processed(2, 3, 40);  // new states and functions are written first...
  bad.states.push_back({function(40), ok_state(41)});
  bad.changes = {change_json(sha(2), function(0)), change_json(sha(1), function(1))};  // ...then this fails
  bad.events = {event_json(sha(2), function(0))};

  auto recorded = store->record(bad);
  ASSERT_FALSE(recorded);
  EXPECT_EQ(recorded.error().code(), ErrorCode::invalid_input);
  EXPECT_EQ(*store->commit_status(sha(2)), std::nullopt);
  EXPECT_EQ(*store->commit_count(), 1);
  EXPECT_TRUE(store->history(std::nullopt)->empty());
  EXPECT_TRUE(store->events_after(0)->empty());
  EXPECT_EQ(count_rows(db_path(), "SELECT count(*) FROM states"), 3);
  EXPECT_EQ(count_rows(db_path(), "SELECT count(*) FROM functions"), 3);
}

TEST_F(SqliteStateStoreTest, RecordsAgainWhatAFailedRecordTookBack) {
  auto store = open_store();
  record(*store, processed(1));
  CommitRecord bad = processed(2, 3, 40);
  bad.states.push_back({function(40), ok_state(41)});
  bad.changes = {change_json(sha(1), function(0))};  // for another commit: fails after the states
  ASSERT_FALSE(store->record(bad));

  bad.changes.clear();  // the same functions and states, whose rows the rollback removed
  record(*store, bad);
  EXPECT_EQ(*store->states_at(sha(2)), bad.states);
  EXPECT_EQ((*store->commit_status(sha(2)))->sequence, 2);
}

TEST_F(SqliteStateStoreTest, FailedReRecordKeepsTheEarlierRecord) {
  auto store = open_store();
  record(*store, processed(1));
  CommitRecord bad = processed(1, 3, 9);
  bad.states.push_back(bad.states[0]);  // the same function twice
  ASSERT_FALSE(store->record(bad));
  EXPECT_EQ(*store->states_at(sha(1)), processed(1).states);
}

TEST_F(SqliteStateStoreTest, SecondConnectionReadsWhatTheFirstRecords) {
  auto writer = open_store();
  auto reader = open_store();
  ASSERT_TRUE(writer && reader);
  record(*writer, processed(1));
  EXPECT_EQ(*reader->commit_count(), 1);
  record(*writer, processed(2));
  EXPECT_EQ(*reader->commit_count(), 2);
}

// A replay records its commits in batches: one transaction, seen by nobody else until it ends.
TEST_F(SqliteStateStoreTest, ABatchOfRecordsIsSeenByOthersOnlyWhenItEnds) {
  auto writer = open_store();
  auto reader = open_store();
  ASSERT_TRUE(writer && reader);
  record(*writer, processed(1));
  ASSERT_TRUE(writer->begin_batch());
  ASSERT_TRUE(writer->begin_batch());  // already open: nothing more
  for (int n = 2; n <= 4; ++n) record(*writer, processed(n, 3, n));
  EXPECT_EQ(*writer->commit_count(), 4);  // the writer reads its own batch
  EXPECT_EQ(*writer->baseline(sha(4)), processed(4, 3, 4).states);
  EXPECT_EQ(*reader->commit_count(), 1);
  ASSERT_TRUE(writer->end_batch());
  EXPECT_EQ(*reader->commit_count(), 4);
  EXPECT_EQ(*reader->states_at(sha(3)), processed(3, 3, 3).states);
  EXPECT_EQ((*reader->commit_status(sha(4)))->sequence, 4);
  ASSERT_TRUE(writer->end_batch());  // none open: nothing
}

// A record that fails inside a batch takes back only itself: the records before and after it in
// the batch are kept.
TEST_F(SqliteStateStoreTest, AFailedRecordInABatchTakesBackOnlyItself) {
  auto store = open_store();
  ASSERT_TRUE(store->begin_batch());
  record(*store, processed(1));
  CommitRecord bad = processed(2, 3, 40);
  bad.states.push_back({function(40), ok_state(41)});
  bad.changes = {change_json(sha(1), function(0))};  // for another commit: fails after the states
  ASSERT_FALSE(store->record(bad));
  bad.changes.clear();
  record(*store, bad);  // its functions and states written again, as the rollback removed them
  record(*store, processed(3));
  ASSERT_TRUE(store->end_batch());

  auto reopened = open_store();
  ASSERT_TRUE(reopened);
  EXPECT_EQ(*reopened->commit_count(), 3);
  EXPECT_EQ(*reopened->states_at(sha(2)), bad.states);
  EXPECT_EQ(*reopened->states_at(sha(3)), processed(3).states);
  EXPECT_EQ(count_rows(db_path(), "SELECT count(*) FROM functions"), 4);
}

// A batch that never ends (the process dies, or the store goes without end_batch()) keeps nothing:
// its commits are processed again.
TEST_F(SqliteStateStoreTest, ABatchThatNeverEndsKeepsNothing) {
  {
    auto store = open_store();
    record(*store, processed(1));
    ASSERT_TRUE(store->begin_batch());
    record(*store, processed(2));
    record(*store, processed(3));
  }
  auto reopened = open_store();
  ASSERT_TRUE(reopened);
  EXPECT_EQ(*reopened->commit_count(), 1);
  EXPECT_EQ(*reopened->commit_status(sha(2)), std::nullopt);
  record(*reopened, processed(2));
  EXPECT_EQ(*reopened->baseline(sha(2)), processed(2).states);
}

TEST_F(SqliteStateStoreTest, ReadOnlyOpenReadsWhatTheWriterRecorded) {
  auto writer = open_store();
  ASSERT_TRUE(writer);
  record(*writer, processed(1));
  auto reader = open_state_store_read_only(db_path(), k_url);
  ASSERT_TRUE(reader) << reader.error().message();
  ASSERT_NE(*reader, nullptr);
  EXPECT_EQ(*(*reader)->commit_count(), 1);
}

// `status` polled while a daemon starts for the first time finds the file before its schema.
TEST_F(SqliteStateStoreTest, ReadOnlyOpenOfADatabaseWithNoTableYetIsNoStore) {
  std::filesystem::create_directories(db_path().parent_path());
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto reader = open_state_store_read_only(db_path(), k_url);
  ASSERT_TRUE(reader) << reader.error().message();
  EXPECT_EQ(*reader, nullptr);
  ASSERT_TRUE(open_store());  // the writer then creates the store there as usual
  auto again = open_state_store_read_only(db_path(), k_url);
  ASSERT_TRUE(again && *again != nullptr);
}

TEST_F(SqliteStateStoreTest, NamedValuesAreOverwrittenAndKeptApartFromTheRepositoryUrl) {
  auto store = open_store();
  EXPECT_EQ(*store->value("remote_head"), std::nullopt);
  ASSERT_TRUE(store->set_value("remote_head", "a"));
  ASSERT_TRUE(store->set_value("remote_head", "b"));
  ASSERT_TRUE(store->set_value("repository_url", "elsewhere"));
  EXPECT_EQ(*store->value("remote_head"), "b");
  store.reset();
  EXPECT_TRUE(open_store());
}

// ---- the outbox ------------------------------------------------------------------------------------

Notification notification(std::string_view target, int commit, int f,
                          std::string_view severity = "breaking") {
  return {std::string(target), change_json(sha(commit), function(f), severity)};
}

// A processed commit n with one change of function 0, announced to the webhook and as an issue.
CommitRecord with_notifications(int n) {
  CommitRecord record = processed(n);
  record.changes = {change_json(sha(n), function(0))};
  record.notifications = {notification(k_target_webhook, n, 0), notification(k_target_github_issue, n, 0)};
  return record;
}

TimePoint at_ms(std::int64_t ms) { return TimePoint(std::chrono::milliseconds(ms)); }

TEST_F(SqliteStateStoreTest, RecordWritesNotificationsDueAtOnce) {
  auto store = open_store();
  record(*store, with_notifications(1));
  auto due = store->due_notifications(at_ms(0), 10);
  ASSERT_TRUE(due) << due.error().message();
  ASSERT_EQ(due->size(), 2u);
  EXPECT_EQ((*due)[0].target, k_target_webhook);
  EXPECT_EQ((*due)[1].target, k_target_github_issue);
  EXPECT_EQ((*due)[0].payload, change_json(sha(1), function(0)));
  EXPECT_EQ((*due)[0].state, OutboxState::pending);
  EXPECT_EQ((*due)[0].attempts, 0);
  EXPECT_TRUE(matches_shape((*due)[0].created_at, "dddd-dd-ddTdd:dd:ddZ")) << (*due)[0].created_at;
  EXPECT_EQ(*store->next_notification_due(), std::optional<TimePoint>(at_ms(0)));
}

TEST_F(SqliteStateStoreTest, ReRecordingACommitNeverDuplicatesNorResetsNotifications) {
  auto store = open_store();
  record(*store, with_notifications(1));
  OutboxItem item = (*store->due_notifications(at_ms(0), 10))[0];
  item.state = OutboxState::delivered;
  item.attempts = 1;
  ASSERT_TRUE(store->update_notification(item));

  record(*store, with_notifications(1));
  EXPECT_EQ(count_rows(db_path(), "SELECT count(*) FROM outbox"), 2);
  EXPECT_EQ(store->outbox_counts()->delivered, 1) << "the delivered one stays delivered";
  EXPECT_EQ(store->outbox_counts()->pending, 1);
}

TEST_F(SqliteStateStoreTest, SameFunctionUnderTwoImportStatementsIsTwoNotifications) {
  auto store = open_store();
  CommitRecord record1 = processed(1);
  MonitoredFunction other{"from aiter import f0", function(0).function_path};
  record1.notifications = {notification(k_target_webhook, 1, 0),
                           {std::string(k_target_webhook), change_json(sha(1), other)}};
  record(*store, record1);
  EXPECT_EQ(store->outbox_counts()->pending, 2);
}

// What a force-push took back of function f, queued with commit n (CommitProcessor::add_rewrite).
Notification rewrite_notice(std::string_view target, int f) {
  Json notice = change_json(sha(1), function(f));
  notice.erase("commit");
  notice["type"] = "history_rewritten";
  notice["old_head"] = sha(8).hex;
  return {std::string(target), notice};
}

TEST_F(SqliteStateStoreTest, ARewriteNoticeAndTheCommitsOwnChangeOfOneFunctionAreTwoNotifications) {
  auto store = open_store();
  CommitRecord record2 = with_notifications(2);
  record2.notifications.push_back(rewrite_notice(k_target_webhook, 0));
  record(*store, record2);
  EXPECT_EQ(store->outbox_counts()->pending, 3);
  EXPECT_EQ(count_rows(db_path(), "SELECT count(*) FROM outbox WHERE kind = 'rewrite'"), 1);
  record(*store, record2);
  EXPECT_EQ(store->outbox_counts()->pending, 3) << "recorded again: no duplicate of either kind";
}

TEST_F(SqliteStateStoreTest, MigratesAVersionFourOutboxKeepingItsRowsAsChanges) {
  {
    auto store = open_store();
    record(*store, with_notifications(1));
    OutboxItem item = (*store->due_notifications(at_ms(0), 10))[0];
    item.state = OutboxState::delivered;
    item.delivered_ref = "https://github.com/o/r/issues/1";
    ASSERT_TRUE(store->update_notification(item));
  }
  // The version 4 table: no kind, one row per (target, commit, function).
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
  const std::string to_version_4 =
      "DROP INDEX outbox_due; ALTER TABLE outbox RENAME TO outbox_5; " +
      std::string(sqlite::k_outbox_schema) +
      "INSERT INTO outbox(id, target, commit_sequence, function_id, payload, state, attempts, client_errors, "
      "  next_attempt_at, last_error, delivered_ref, created_at, updated_at) "
      "SELECT id, target, commit_sequence, function_id, payload, state, attempts, client_errors, "
      "next_attempt_at, "
      "  last_error, delivered_ref, created_at, updated_at FROM outbox_5; "
      "DROP TABLE outbox_5; PRAGMA user_version = 4;";
  ASSERT_EQ(sqlite3_exec(db, to_version_4.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  ASSERT_EQ(count_rows(db_path(), "SELECT count(*) FROM pragma_table_info('outbox') WHERE name = 'kind'"), 0);

  auto store = open_store();
  ASSERT_TRUE(store);
  EXPECT_EQ(count_rows(db_path(), "PRAGMA user_version"), 5);
  EXPECT_EQ(store->outbox_counts()->delivered, 1);
  EXPECT_EQ(store->outbox_counts()->pending, 1);
  EXPECT_EQ(count_rows(db_path(), "SELECT count(*) FROM outbox WHERE kind = 'change'"), 2);
  auto delivered = store->notifications(OutboxState::delivered, 10);
  ASSERT_TRUE(delivered && delivered->size() == 1u);
  EXPECT_EQ((*delivered)[0].delivered_ref, "https://github.com/o/r/issues/1");
  CommitRecord again = with_notifications(1);
  again.notifications.push_back(rewrite_notice(k_target_webhook, 0));
  record(*store, again);
  EXPECT_EQ(store->outbox_counts()->pending, 2) << "the rewrite's beside the change's";
}

TEST_F(SqliteStateStoreTest, FailedRecordLeavesNoNotification) {
  auto store = open_store();
  CommitRecord bad = with_notifications(2);
  bad.notifications.push_back(notification(k_target_webhook, 1, 1));  // of another commit: fails last
  ASSERT_FALSE(store->record(bad));
  EXPECT_EQ(count_rows(db_path(), "SELECT count(*) FROM outbox"), 0);
  EXPECT_EQ(*store->commit_status(sha(2)), std::nullopt);
}

TEST_F(SqliteStateStoreTest, DueNotificationsRespectNextAttemptTimeAndLimit) {
  auto store = open_store();
  record(*store, with_notifications(1));
  record(*store, with_notifications(2));
  auto all = *store->due_notifications(at_ms(0), 10);
  ASSERT_EQ(all.size(), 4u);
  all[0].next_attempt_at = at_ms(5000);
  all[0].attempts = 1;
  all[0].last_error = "webhook https://hooks.example.com answered 500";
  ASSERT_TRUE(store->update_notification(all[0]));

  auto due = *store->due_notifications(at_ms(4999), 10);
  ASSERT_EQ(due.size(), 3u);
  EXPECT_EQ(due[0].id, all[1].id);
  EXPECT_EQ(store->due_notifications(at_ms(4999), 2)->size(), 2u);
  due = *store->due_notifications(at_ms(5000), 10);
  EXPECT_EQ(due.size(), 4u);
  EXPECT_EQ(due.back().id, all[0].id) << "the retried one comes after those never tried";
  EXPECT_EQ(due.back().last_error, "webhook https://hooks.example.com answered 500");
}

TEST_F(SqliteStateStoreTest, DeliveryStateSurvivesReopen) {
  std::int64_t failed_id = 0;
  {
    auto store = open_store();
    record(*store, with_notifications(1));
    auto items = *store->due_notifications(at_ms(0), 10);
    items[0].state = OutboxState::delivered;
    items[0].attempts = 2;
    items[0].delivered_ref = "https://github.com/o/r/issues/7";
    items[1].state = OutboxState::failed;
    items[1].attempts = 5;
    items[1].client_errors = 5;
    items[1].last_error = "GitHub answered 404";
    items[1].next_attempt_at = at_ms(123456);
    ASSERT_TRUE(store->update_notification(items[0]));
    ASSERT_TRUE(store->update_notification(items[1]));
    failed_id = items[1].id;
  }
  auto store = open_store();
  auto counts = *store->outbox_counts();
  EXPECT_EQ(counts.pending, 0);
  EXPECT_EQ(counts.delivered, 1);
  EXPECT_EQ(counts.failed, 1);
  EXPECT_EQ(*store->next_notification_due(), std::nullopt);
  auto failed = *store->notifications(OutboxState::failed, 10);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].id, failed_id);
  EXPECT_EQ(failed[0].client_errors, 5);
  EXPECT_EQ(failed[0].attempts, 5);
  EXPECT_EQ(failed[0].last_error, "GitHub answered 404");
  EXPECT_EQ(failed[0].next_attempt_at, at_ms(123456));
  auto delivered = *store->notifications(OutboxState::delivered, 10);
  ASSERT_EQ(delivered.size(), 1u);
  EXPECT_EQ(delivered[0].delivered_ref, "https://github.com/o/r/issues/7");
}

TEST_F(SqliteStateStoreTest, UpdatingAnUnknownNotificationIsNotFound) {
  auto store = open_store();
  OutboxItem item;
  item.id = 42;
  auto updated = store->update_notification(item);
  ASSERT_FALSE(updated);
  EXPECT_EQ(updated.error().code(), ErrorCode::not_found);
}

TEST_F(SqliteStateStoreTest, PullRequestIsWrittenIntoHistoryAndNotificationsOfTheCommit) {
  auto store = open_store();
  record(*store, with_notifications(1));
  record(*store, with_notifications(2));
  ASSERT_TRUE(store->set_pull_request(sha(1), "https://github.com/o/r/pull/3"));
  auto changes = *store->history(std::nullopt);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0]["pull_request"], "https://github.com/o/r/pull/3");
  EXPECT_FALSE(changes[1].contains("pull_request")) << "another commit's change is left alone";
  auto items = store->due_notifications(at_ms(0), 10);
  ASSERT_TRUE(items);
  ASSERT_EQ(items->size(), 4u);
  for (const OutboxItem& item : *items) {
    if (item.payload["commit"] == sha(1).hex) {
      EXPECT_EQ(item.payload["pull_request"], "https://github.com/o/r/pull/3");
    } else {
      EXPECT_FALSE(item.payload.contains("pull_request"));
    }
  }
  EXPECT_TRUE(store->set_pull_request(sha(9), "https://github.com/o/r/pull/4"))
      << "unrecorded: nothing to do";
}

TEST_F(SqliteStateStoreTest, MigratesAVersionOneStoreKeepingItsData) {
  {
    auto store = open_store();
    record(*store, processed(1));
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "DROP TABLE outbox; ALTER TABLE commits DROP COLUMN bisected; "
                         "ALTER TABLE commits DROP COLUMN keyframe; PRAGMA user_version = 1",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);

  auto store = open_store();
  ASSERT_TRUE(store);
  EXPECT_EQ(count_rows(db_path(), "PRAGMA user_version"), 5);
  EXPECT_EQ(store->states_at(sha(1))->size(), 3u);
  record(*store, with_notifications(2));
  EXPECT_EQ(store->outbox_counts()->pending, 2);
}

// ---- commits not built, inferred by bisection (schema version 3) ----------------------------------

CommitRecord bisected(int n) {
  CommitRecord record = processed(n);
  record.bisected = true;
  return record;
}

TEST_F(SqliteStateStoreTest, KeepsTheBisectedFlagOfEachCommitAcrossReopen) {
  {
    auto store = open_store();
    ASSERT_TRUE(store);
    record(*store, processed(1));
    record(*store, bisected(2));
  }
  auto store = open_store();
  ASSERT_TRUE(store);
  auto built = store->commit_status(sha(1));
  auto inferred = store->commit_status(sha(2));
  ASSERT_TRUE(built && *built);
  ASSERT_TRUE(inferred && *inferred);
  EXPECT_FALSE((*built)->bisected);
  EXPECT_TRUE((*inferred)->bisected);
  EXPECT_EQ((*inferred)->outcome, CommitOutcome::processed);
  EXPECT_EQ(store->states_at(sha(2))->size(), 3u);
}

TEST_F(SqliteStateStoreTest, RecordingABisectedCommitAgainAsBuiltClearsTheFlag) {
  auto store = open_store();
  ASSERT_TRUE(store);
  record(*store, processed(1));
  record(*store, bisected(2));
  record(*store, processed(2, 3, 1));
  auto status = store->commit_status(sha(2));
  ASSERT_TRUE(status && *status);
  EXPECT_FALSE((*status)->bisected);
  EXPECT_EQ((*status)->sequence, 2) << "the commit keeps its place";
  EXPECT_EQ(count_rows(db_path(), "SELECT bisected FROM commits WHERE sha = '" + sha(2).hex + "'"), 0);
  record(*store, bisected(2));
  EXPECT_TRUE((*store->commit_status(sha(2)))->bisected) << "the latest record decides";
}

TEST_F(SqliteStateStoreTest, MigratesAVersionTwoStoreMarkingItsCommitsBuilt) {
  {
    auto store = open_store();
    record(*store, processed(1));
    record(*store, with_notifications(2));
  }
  // A version 2 database: commits without the column. SQLite 3.35+ drops a column in place.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db,
                   "ALTER TABLE commits DROP COLUMN bisected; ALTER TABLE commits DROP COLUMN keyframe; "
                   "PRAGMA user_version = 2",
                   nullptr, nullptr, nullptr),
      SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  ASSERT_EQ(
      count_rows(db_path(), "SELECT count(*) FROM pragma_table_info('commits') WHERE name = 'bisected'"), 0);

  auto store = open_store();
  ASSERT_TRUE(store);
  EXPECT_EQ(count_rows(db_path(), "PRAGMA user_version"), 5);
  for (int n : {1, 2}) {
    auto status = store->commit_status(sha(n));
    ASSERT_TRUE(status && *status) << n;
    EXPECT_FALSE((*status)->bisected) << n;
    EXPECT_EQ((*status)->sequence, n);
  }
  EXPECT_EQ(store->states_at(sha(1))->size(), 3u);
  EXPECT_EQ(store->outbox_counts()->pending, 2);
  record(*store, bisected(3));
  EXPECT_TRUE((*store->commit_status(sha(3)))->bisected);
}

// ---- crash safety ---------------------------------------------------------------------------------

constexpr int k_crash_functions = 4;

// What the crash child records as commit n: states that depend on n, one change, one event.
CommitRecord crash_record(int n) {
  CommitRecord record = processed(n, k_crash_functions, n / 5);
  record.states[1].state = SignatureState::failed(Status::missing, "gone at " + std::to_string(n));
  record.changes = {change_json(sha(n), function(0))};
  record.events = {event_json(sha(n), function(0))};
  record.notifications = {{std::string(k_target_webhook), change_json(sha(n), function(0))}};
  record.advances_line = true;
  return record;
}

// Runs in the forked child: opens the store, says so on `ready`, then records commits after the
// last one forever. Only SQLite and the store are used, and the child never returns into the test
// framework.
[[noreturn]] void record_until_killed(const std::filesystem::path& path, int ready) {
  auto store = open_state_store(path, k_url);
  if (!store) _exit(2);
  auto count = (*store)->commit_count();
  if (!count) _exit(3);
  if (write(ready, "r", 1) != 1) _exit(5);
  for (int n = static_cast<int>(*count) + 1;; ++n) {
    if (!(*store)->record(crash_record(n))) _exit(4);
  }
}

void expect_consistent(StateStore& store, const std::filesystem::path& path) {
  auto count = static_cast<int>(*store.commit_count());
  for (int n = 1; n <= count; ++n) {
    auto status = *store.commit_status(sha(n));
    ASSERT_TRUE(status) << "commit " << n << " of " << count << " missing";
    ASSERT_EQ(status->sequence, n);
    ASSERT_EQ(*store.states_at(sha(n)), crash_record(n).states) << "commit " << n;
  }
  EXPECT_EQ(*store.commit_status(sha(count + 1)), std::nullopt);
  EXPECT_EQ(store.history(std::nullopt)->size(), static_cast<std::size_t>(count));
  EXPECT_EQ(store.events_after(0)->size(), static_cast<std::size_t>(count));
  EXPECT_EQ(*store.line_head(), count > 0 ? std::optional<ObjectId>(sha(count)) : std::nullopt);
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM commit_states"), count * k_crash_functions);
  EXPECT_EQ(store.outbox_counts()->pending, count) << "one notification per recorded commit, none without";
  EXPECT_EQ(text_of(path, "PRAGMA integrity_check"), "ok");
}

TEST_F(SqliteStateStoreTest, StaysConsistentWhenTheWriterIsKilledAtAnyInstant) {
  std::mt19937 random(20261121);
  // Kills within the first 10 ms of a writer; on a slow build (sanitizers) the window widens
  // after each round that recorded nothing new, until the writers get far enough to test.
  int max_delay_us = 10000;
  std::int64_t recorded = 0;
  for (int round = 0; round < 200 && (round < 20 || recorded <= 20); ++round) {
    std::uniform_int_distribution<int> delay_us(0, max_delay_us);
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t child = fork();  // no store is open in this process: the child's connection is its own
    ASSERT_GE(child, 0);
    if (child == 0) record_until_killed(db_path(), ready[1]);
    close(ready[1]);
    char byte = 0;
    bool opened = read(ready[0], &byte, 1) == 1;  // timed from the open: a fork may take a while
    close(ready[0]);
    if (opened) std::this_thread::sleep_for(std::chrono::microseconds(delay_us(random)));
    kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself with exit code " << WEXITSTATUS(status);

    auto store = open_store();
    ASSERT_TRUE(store);
    expect_consistent(*store, db_path());
    const std::int64_t now = *store->commit_count();
    if (now == recorded) max_delay_us = std::min(max_delay_us * 2, 1000000);
    recorded = now;
  }
  EXPECT_GT(recorded, 20) << "the writers were killed too early to test anything";
}

}  // namespace
}  // namespace aaw
