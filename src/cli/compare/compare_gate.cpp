#include "cli/compare/compare_gate.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/command_context.hpp"
#include "core/compare/github_annotations.hpp"
#include "core/compare/job_summary.hpp"
#include "core/compare/render.hpp"
#include "core/compare/sarif.hpp"
#include "util/files.hpp"

namespace aaw::cli {
namespace {

// The waivers file at the root of `commit`, nullopt when there is none.
std::optional<WaiverFile> waivers_in_tree(GitMirror& mirror, const ObjectId& commit) {
  auto tree = value_or_throw(mirror.tree(commit));
  auto blob = value_or_throw(tree->find_blob(k_waivers_file_name));
  if (!blob) return std::nullopt;
  auto text = value_or_throw(tree->read_blob(*blob));
  const std::string where = commit.short_hex() + ":" + std::string(k_waivers_file_name);
  return value_or_throw(parse_waivers(text, where));
}

}  // namespace

WaiverFile find_waivers(const std::filesystem::path& flag, const Config& config,
                        const std::filesystem::path& config_path, GitMirror& mirror,
                        const ObjectId& new_commit) {
  if (!flag.empty()) return value_or_throw(load_waivers(flag));
  if (!config.gate.waivers.empty()) return value_or_throw(load_waivers(config.gate.waivers));
  if (auto in_tree = waivers_in_tree(mirror, new_commit)) return *in_tree;
  auto beside = std::filesystem::absolute(config_path).parent_path() / k_waivers_file_name;
  if (std::filesystem::exists(beside)) return value_or_throw(load_waivers(beside));
  return {};
}

std::string render_document(const Json& document, const std::string& format) {
  if (format == "json") return document.dump(2) + "\n";
  if (format == "markdown") return render_markdown(document);
  if (format == "sarif") return render_sarif(document, k_version).dump(2) + "\n";
  if (format == "github") return render_github_annotations(document);
  return "";
}

void append_job_summary(const std::filesystem::path& path, const Json& document) {
  std::ofstream out(path, std::ios::app);
  out << render_job_summary(document);
  out.flush();
  if (!out)
    throw CommandError{"cannot write job summary '" + path.string() +
                       "': " + std::strerror(errno ? errno : EIO)};
}

void write_output(const std::filesystem::path& path, const std::string& text, const std::string& what) {
  auto written = write_file_atomically(path, text);
  if (!written)
    throw CommandError{"cannot write " + what + " '" + path.string() + "': " + written.error().message()};
}

}  // namespace aaw::cli
