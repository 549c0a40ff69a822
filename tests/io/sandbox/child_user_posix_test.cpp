#include "io/sandbox/child_user_posix.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "support/temp_dir.hpp"

namespace aaw::detail {
namespace {

namespace fs = std::filesystem;

struct stat lstat_of(const fs::path& path) {
  struct stat st {};
  ::lstat(path.c_str(), &st);
  return st;
}

// A uid of the range `auto` draws from, with no passwd entry here.
const ChildUser k_builder{61234, 61234, "uid 61234"};

#define SKIP_UNLESS_ROOT() \
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: only root can change a file's owner or its uid"

TEST(ResolveRunAsTest, AutoIsAUidOfTheStateDirectorysOwnForRootAndTheDaemonsUserOtherwise) {
  auto as_root = resolve_run_as("auto", 0, "/var/lib/aiter-api-watcher");
  ASSERT_TRUE(as_root && *as_root);
  const uid_t uid = (*as_root)->uid;
  EXPECT_GE(uid, k_auto_first_uid);
  EXPECT_LT(uid, k_auto_first_uid + k_auto_uids);
  EXPECT_EQ((*as_root)->gid, uid);
  EXPECT_EQ((*as_root)->name, "uid " + std::to_string(uid));
  EXPECT_EQ((*resolve_run_as("auto", 0, "/var/lib/aiter-api-watcher/"))->uid, uid) << "the same directory";
  EXPECT_NE((*resolve_run_as("auto", 0, "/var/lib/aiter-api-watcher-branch"))->uid, uid)
      << "another daemon's state directory";
  auto as_user = resolve_run_as("auto", 1000, "/var/lib/aiter-api-watcher");
  ASSERT_TRUE(as_user);
  EXPECT_FALSE(*as_user);
  auto daemon = resolve_run_as("daemon", 0, "/var/lib/aiter-api-watcher");
  ASSERT_TRUE(daemon);
  EXPECT_FALSE(*daemon);
}

TEST(ResolveRunAsTest, UidOrUidAndGid) {
  auto both = resolve_run_as("1234:5678", 0, "/state");
  ASSERT_TRUE(both && *both);
  EXPECT_EQ((*both)->uid, 1234u);
  EXPECT_EQ((*both)->gid, 5678u);
  auto one = resolve_run_as("4321", 0, "/state");
  ASSERT_TRUE(one && *one);
  EXPECT_EQ((*one)->gid, 4321u);
  EXPECT_EQ((*one)->name, "uid 4321");
}

TEST(ResolveRunAsTest, RefusesRootNobodyStrangersAndAnyUserWhenNotRoot) {
  const std::pair<const char*, const char*> cases[] = {
      {"0", "is root"},
      {"root", "is root"},
      {"65534", "nobody"},
      {"no-such-user-aaw", "no user 'no-such-user-aaw'"},
      {"12:ab", "not a user name, UID or UID:GID"},
      {"", "is empty"},
  };
  for (const auto& [value, why] : cases) {
    auto refused = resolve_run_as(value, 0, "/state");
    ASSERT_FALSE(refused) << value;
    EXPECT_EQ(refused.error().code(), ErrorCode::invalid_input);
    EXPECT_NE(refused.error().message().find(why), std::string::npos) << refused.error().message();
  }
  auto not_root = resolve_run_as("1234", 1000, "/state");
  ASSERT_FALSE(not_root);
  EXPECT_NE(not_root.error().message().find("needs the daemon to run as root"), std::string::npos)
      << not_root.error().message();
}

TEST(HandOverTest, EverythingBelongsToTheUserButWhatLinksLeadToAndHardLinkedFiles) {
  SKIP_UNLESS_ROOT();
  test::TempDir dir("aaw-hand-over");
  const fs::path tree = dir / "work";
  fs::create_directories(tree / "pkg" / "deep");
  std::ofstream(tree / "pkg" / "deep" / "m.py") << "x = 1\n";
  std::ofstream(dir / "outside.txt") << "root's\n";
  std::ofstream(dir / "linked.txt") << "root's too\n";
  fs::create_symlink(dir / "outside.txt", tree / "link");
  fs::create_directory_symlink(dir.path(), tree / "dirlink");
  fs::create_hard_link(dir / "linked.txt", tree / "hard");

  ASSERT_TRUE(hand_over(tree, k_builder));
  for (const fs::path& path :
       {tree, tree / "pkg", tree / "pkg/deep", tree / "pkg/deep/m.py", tree / "link", tree / "dirlink"}) {
    EXPECT_EQ(lstat_of(path).st_uid, k_builder.uid) << path;
    EXPECT_EQ(lstat_of(path).st_gid, k_builder.gid) << path;
  }
  EXPECT_EQ(lstat_of(dir / "outside.txt").st_uid, 0u) << "followed a link";
  EXPECT_EQ(lstat_of(dir.path()).st_uid, 0u) << "followed a directory link";
  EXPECT_EQ(lstat_of(dir / "linked.txt").st_uid, 0u) << "handed over a file linked from elsewhere";

  ASSERT_TRUE(hand_over(tree, ChildUser{0, 0, "root"}));
  EXPECT_EQ(lstat_of(tree / "pkg/deep/m.py").st_uid, 0u);
}

TEST(HandOverTest, AMissingDirectoryOrOneThatIsALinkIsAnError) {
  test::TempDir dir("aaw-hand-over");
  auto missing = hand_over(dir / "none", k_builder);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("'" + (dir / "none").string() + "'"), std::string::npos);
  fs::create_directory_symlink(dir.path(), dir / "link");
  EXPECT_FALSE(hand_over(dir / "link", k_builder));
}

TEST(UserMayAccessTest, AsksAsTheUserThroughEveryDirectoryOnTheWay) {
  SKIP_UNLESS_ROOT();
  test::TempDir dir("aaw-access");  // 0700, root's
  std::ofstream(dir / "open.txt") << "x\n";
  fs::permissions(dir / "open.txt", fs::perms::owner_read | fs::perms::others_read);
  EXPECT_TRUE(user_may_access(ChildUser{0, 0, "root"}, dir / "open.txt", R_OK));
  EXPECT_FALSE(user_may_access(k_builder, dir / "open.txt", R_OK));
  fs::permissions(dir.path(), fs::perms::others_exec, fs::perm_options::add);
  EXPECT_TRUE(user_may_access(k_builder, dir / "open.txt", R_OK));
  fs::permissions(dir / "open.txt", fs::perms::owner_read);
  EXPECT_FALSE(user_may_access(k_builder, dir / "open.txt", R_OK));
}

TEST(KillProcessesOfTest, EveryProcessOfTheUserIsKilledWhereverItRuns) {
  SKIP_UNLESS_ROOT();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!become(k_builder)) _exit(3);
    ::setsid();  // away from our group, as a build's daemon would go
    ::pause();
    _exit(0);
  }
  // Until it has taken the uid, it would survive the kill.
  for (int i = 0; i < 200 && lstat_of("/proc/" + std::to_string(pid)).st_uid != k_builder.uid; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill_processes_of(k_builder);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

}  // namespace
}  // namespace aaw::detail
