#include "support/git_fixture.hpp"

#include <fstream>
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

std::string GitFixture::commit(const std::string& message) {
  git({"add", "-A"});
  // Dates one minute apart: ids are reproducible and "newest" is never a tie.
  const std::string date = "@" + std::to_string(k_epoch + 60LL * m_commits++) + " +0000";
  RunOptions options = isolated_git_options();
  options.env["GIT_AUTHOR_DATE"] = date;
  options.env["GIT_COMMITTER_DATE"] = date;
  options.cwd = m_dir;
  const ProcessResult result = run_process({"git", "commit", "-q", "--allow-empty", "-m", message}, options);
  if (!result.ok()) throw std::runtime_error("git commit failed: " + result.err);
  return head_from_files();
}

// HEAD's commit as `git rev-parse HEAD` gives it, read from the files `git commit` just wrote (a
// process fewer per commit); git answers when the branch is not a loose ref.
std::string GitFixture::head_from_files() const {
  std::ifstream head_file(m_dir / ".git" / "HEAD");
  std::string head;
  std::getline(head_file, head);
  const std::string prefix = "ref: ";
  std::string id;
  if (head.rfind(prefix, 0) == 0) {
    std::ifstream ref_file(m_dir / ".git" / head.substr(prefix.size()));
    std::getline(ref_file, id);
  } else {
    id = head;  // detached
  }
  if (id.size() == 40 && id.find_first_not_of("0123456789abcdef") == std::string::npos) return id;
  return rev_parse("HEAD");
}

std::vector<std::string> GitFixture::commit_versions(const std::string& relative_path,
                                                     const std::vector<std::string>& texts,
                                                     const std::string& subject) {
  const std::string branch = trimmed(git({"symbolic-ref", "-q", "HEAD"}));
  std::string stream;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::string who =
        "Test Author <author@example.com> " + std::to_string(k_epoch + 60LL * m_commits++) + " +0000\n";
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
