#include "support/git_fixture.hpp"

#include <git2.h>

#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "support/process.hpp"

namespace aaw::test {
namespace {

// 2023-11-14 22:13:20 UTC: any fixed instant will do; it makes commit ids reproducible.
constexpr long long k_epoch = 1700000000;

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

std::string describe(const std::vector<std::string>& args) {
  std::string out = "git";
  for (const auto& arg : args) out += " " + arg;
  return out;
}

}  // namespace

RunOptions isolated_git_options() {
  RunOptions options;
  options.env = {{"GIT_CONFIG_NOSYSTEM", "1"},
                 {"GIT_CONFIG_GLOBAL", "/dev/null"},
                 {"GIT_TERMINAL_PROMPT", "0"},
                 // Every `git commit` would otherwise start `git maintenance run --auto`: a
                 // process per commit, a sixth of what the fixtures ran.
                 {"GIT_CONFIG_COUNT", "2"},
                 {"GIT_CONFIG_KEY_0", "maintenance.auto"},
                 {"GIT_CONFIG_VALUE_0", "false"},
                 {"GIT_CONFIG_KEY_1", "gc.auto"},
                 {"GIT_CONFIG_VALUE_1", "0"},
                 {"LC_ALL", "C"}};
  options.unset_env = {"GIT_DIR",
                       "GIT_WORK_TREE",
                       "GIT_INDEX_FILE",
                       "GIT_OBJECT_DIRECTORY",
                       "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                       "GIT_CEILING_DIRECTORIES",
                       "GIT_NAMESPACE"};
  return options;
}

GitFixture::GitFixture(std::filesystem::path dir) : m_dir(std::move(dir)) {
  std::filesystem::create_directories(m_dir);
  git({"init", "-q", "-b", "main"});
  // Written as `git config` would, without four more processes for every repository.
  std::ofstream config(m_dir / ".git" / "config", std::ios::app);
  config << "[user]\n\tname = Test Author\n\temail = author@example.com\n"
            "[commit]\n\tgpgsign = false\n[tag]\n\tgpgsign = false\n";
  if (!config.flush()) throw std::runtime_error("cannot write " + (m_dir / ".git" / "config").string());
}

std::string GitFixture::file_url() const { return "file://" + std::filesystem::absolute(m_dir).string(); }

void GitFixture::write_file(const std::string& relative_path, std::string_view content) {
  const auto file = m_dir / relative_path;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

void GitFixture::remove_file(const std::string& relative_path) {
  git({"rm", "-q", "-r", "--", relative_path});
}

namespace {

template <class T, void (*Free)(T*)>
using FixtureHandle = std::unique_ptr<T, std::integral_constant<decltype(Free), Free>>;

void check_git(int rc, const std::string& what) {
  if (rc >= 0) return;
  const git_error* error = git_error_last();
  throw std::runtime_error(what + " failed: " + (error != nullptr ? error->message : "libgit2 error"));
}

// `git add -A && git commit --allow-empty -m MESSAGE` with both dates at `when`, in-process: the
// same index, tree and commit object (so the same id) as the command line makes, without its two
// processes (a twentieth of a second a commit here, and the suite makes thousands). nullopt, the
// index untouched, when libgit2 cannot read the work tree: git can.
std::optional<std::string> commit_all(const std::filesystem::path& dir, const std::string& message,
                                      long long when) {
  static const int initialised = git_libgit2_init();  // for the test binary's life
  (void)initialised;
  git_repository* raw_repo = nullptr;
  check_git(git_repository_open(&raw_repo, dir.c_str()), "opening " + dir.string());
  FixtureHandle<git_repository, git_repository_free> repo(raw_repo);
  git_index* raw_index = nullptr;
  check_git(git_repository_index(&raw_index, repo.get()), "reading the index");
  FixtureHandle<git_index, git_index_free> index(raw_index);
  char everything[] = "*";
  char* patterns[] = {everything};
  const git_strarray all{patterns, 1};
  if (git_index_add_all(index.get(), &all, GIT_INDEX_ADD_DEFAULT, nullptr, nullptr) < 0 ||
      git_index_update_all(index.get(), &all, nullptr, nullptr) < 0) {
    return std::nullopt;  // what libgit2 refuses to walk (directories nested over 100 deep)
  }
  check_git(git_index_write(index.get()), "writing the index");
  git_oid tree_id;
  check_git(git_index_write_tree(&tree_id, index.get()), "writing the tree");
  git_tree* raw_tree = nullptr;
  check_git(git_tree_lookup(&raw_tree, repo.get(), &tree_id), "reading the tree");
  FixtureHandle<git_tree, git_tree_free> tree(raw_tree);
  git_signature* raw_who = nullptr;
  check_git(git_signature_new(&raw_who, "Test Author", "author@example.com", when, 0), "the signature");
  FixtureHandle<git_signature, git_signature_free> who(raw_who);
  git_commit* raw_parent = nullptr;
  git_oid parent_id;
  if (git_reference_name_to_id(&parent_id, repo.get(), "HEAD") == 0) {
    check_git(git_commit_lookup(&raw_parent, repo.get(), &parent_id), "reading HEAD");
  }
  FixtureHandle<git_commit, git_commit_free> parent(raw_parent);
  git_buf text = GIT_BUF_INIT;  // as `git commit -m` cleans a message up: --cleanup=whitespace
  check_git(git_message_prettify(&text, message.c_str(), 0, '#'), "the message");
  FixtureHandle<git_buf, git_buf_dispose> text_owner(&text);
  const git_commit* parents[] = {parent.get()};
  git_oid id;
  check_git(git_commit_create(&id, repo.get(), "HEAD", who.get(), who.get(), nullptr, text.ptr, tree.get(),
                              parent ? 1 : 0, parents),
            "git commit");
  char hex[GIT_OID_HEXSZ + 1];
  return git_oid_tostr(hex, sizeof hex, &id);
}

}  // namespace

std::string GitFixture::commit(const std::string& message) {
  const long long when = next_date();
  if (auto id = commit_all(m_dir, message, when)) return *id;
  return commit_with_git_at(message, when);
}

std::string GitFixture::commit_with_git(const std::string& message) {
  return commit_with_git_at(message, next_date());
}

std::string GitFixture::commit_with_git_at(const std::string& message, long long when) {
  git({"add", "-A"});
  const std::string date = "@" + std::to_string(when) + " +0000";
  RunOptions options = isolated_git_options();
  options.env["GIT_AUTHOR_DATE"] = date;
  options.env["GIT_COMMITTER_DATE"] = date;
  options.cwd = m_dir;
  const ProcessResult result = run_process({"git", "commit", "-q", "--allow-empty", "-m", message}, options);
  if (!result.ok()) throw std::runtime_error("git commit failed: " + result.err);
  return rev_parse("HEAD");
}

// Dates one minute apart: ids are reproducible and "newest" is never a tie.
long long GitFixture::next_date() { return k_epoch + 60LL * m_commits++; }

std::vector<std::string> GitFixture::commit_versions(const std::string& relative_path,
                                                     const std::vector<std::string>& texts,
                                                     const std::string& subject) {
  const std::string branch = trimmed(git({"symbolic-ref", "-q", "HEAD"}));
  std::string stream;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::string who = "Test Author <author@example.com> " + std::to_string(next_date()) + " +0000\n";
    const std::string message = subject + " " + std::to_string(i) + "\n";
    stream +=
        "commit " + branch + "\nmark :" + std::to_string(i + 1) + "\nauthor " + who + "committer " + who;
    stream += "data " + std::to_string(message.size()) + "\n" + message;
    if (i == 0) stream += "from " + rev_parse("HEAD") + "\n";
    stream += "M 100644 inline " + relative_path + "\ndata " + std::to_string(texts[i].size()) + "\n" +
              texts[i] + "\n";
  }
  const auto marks = m_dir / ".git" / "fixture-marks";
  RunOptions options = isolated_git_options();
  options.cwd = m_dir;
  options.stdin_text = stream;
  const ProcessResult imported =
      run_process({"git", "fast-import", "--quiet", "--export-marks=" + marks.string()}, options);
  if (!imported.ok()) throw std::runtime_error("git fast-import failed: " + imported.err);
  git({"reset", "-q", "--hard", "HEAD"});
  std::vector<std::string> commits(texts.size());
  std::ifstream in(marks);
  for (std::string mark, sha; in >> mark >> sha;) commits.at(std::stoul(mark.substr(1)) - 1) = sha;
  std::filesystem::remove(marks);
  return commits;
}

void GitFixture::branch(const std::string& name) { git({"branch", name}); }
void GitFixture::checkout(const std::string& name) { git({"checkout", "-q", name}); }
void GitFixture::delete_branch(const std::string& name) { git({"branch", "-q", "-D", name}); }
void GitFixture::tag(const std::string& name) { git({"tag", name}); }
void GitFixture::delete_tag(const std::string& name) { git({"tag", "-d", name}); }

void GitFixture::annotated_tag(const std::string& name, const std::string& message) {
  git({"tag", "-a", name, "-m", message});
}

std::string GitFixture::rev_parse(const std::string& revision) const {
  return trimmed(git({"rev-parse", "--verify", revision}));
}

std::filesystem::path GitFixture::bare_clone(const std::filesystem::path& dest) const {
  git({"clone", "-q", "--bare", m_dir.string(), dest.string()});
  return dest;
}

void GitFixture::push_mirror(const std::filesystem::path& dest) const {
  git({"push", "-q", "--mirror", dest.string()});
}

std::string GitFixture::git(const std::vector<std::string>& args) const {
  RunOptions options = isolated_git_options();
  options.cwd = m_dir;
  std::vector<std::string> argv{"git"};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult result = run_process(argv, options);
  if (!result.ok()) throw std::runtime_error(describe(args) + " failed: " + result.err);
  return result.out;
}

}  // namespace aaw::test
