#include "cli/consumer/consumer_check_command.hpp"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "cli/command_context.hpp"
#include "cli/consumer/consumer_session.hpp"
#include "core/consumer/cached_op_registry.hpp"
#include "core/consumer/consumer_check.hpp"
#include "core/consumer/consumer_ops.hpp"
#include "core/consumer/consumer_upgrade.hpp"
#include "extract/consumer/consumer_scanner.hpp"
#include "extract/static/static_function_finder.hpp"

namespace aaw::cli {
namespace {

Config consumer_config(const CheckOptions& options) {
  Config config = read_config_or_throw(options.config_path);
  if (!config.consumer.configured())
    throw CommandError{"consumer: not set in '" + options.config_path.string() +
                       "': give consumer.path (a checkout) or consumer.repository_url"};
  // Signatures at any commit in milliseconds: the static extractor, whatever the config watches with.
  config.extractor = "static";
  return config;
}

// COMMIT, else the branch head, fetched first; a failed fetch falls back on what the mirror has.
ObjectId commit_to_check(GitMirror& mirror, const Config& config, const std::string& revision, Logger& log) {
  if (!revision.empty())
    if (auto known = mirror.resolve(revision)) return *known;
  if (auto fetched = mirror.fetch(); !fetched) log.warn("Cannot fetch: {}", fetched.error().message());
  const std::string& wanted = revision.empty() ? config.branch : revision;
  auto commit = mirror.resolve(wanted);
  if (!commit)
    throw CommandError{(revision.empty() ? "branch '" : "commit '") + wanted +
                       "': " + commit.error().message()};
  return *commit;
}

// The first-parent history of `tip`, oldest first, ending at `tip`.
std::vector<ObjectId> first_parent_history(GitMirror& mirror, const ObjectId& tip) {
  std::vector<ObjectId> history{tip};
  for (;;) {
    auto info = mirror.commit_info(history.back());
    if (!info || info->parents.empty()) break;
    history.push_back(info->parents.front());
  }
  std::reverse(history.begin(), history.end());
  return history;
}

void print(const ConsumerCheck& check, const std::string& format) {
  if (format == "json")
    std::cout << consumer_check_to_json(check).dump(2) << "\n";
  else if (format == "markdown")
    std::cout << render_consumer_markdown(check);
  else
    std::cout << render_consumer_text(check, console_settings().quiet);
}

// The first-parent commits from `pin` to `head`, oldest first, both included; invalid_input when
// the pin is not on that line.
std::vector<ObjectId> history_since(GitMirror& mirror, const ObjectId& pin, const ObjectId& head,
                                    const std::string& pinned) {
  const std::string what = "consumer.pinned_commit '" + pinned + "'";
  auto range = mirror.first_parent_range(pin, head);  // what the pin does not reach, oldest first
  if (!range) throw CommandError{what + ": " + range.error().message()};
  bool on_line = pin == head;
  if (!range->empty()) {
    auto oldest = mirror.commit_info(range->front());
    on_line = oldest && !oldest->parents.empty() && oldest->parents.front() == pin;
  }
  if (!on_line)
    throw CommandError{what + ": not on the first-parent history of " + head.short_hex() +
                       " (a commit of a side branch, or newer than it)"};
  range->insert(range->begin(), pin);
  return *range;
}

void print_upgrade(const ConsumerUpgrade& upgrade, const std::string& format) {
  if (format == "json")
    std::cout << upgrade_to_json(upgrade).dump(2) << "\n";
  else if (format == "markdown")
    std::cout << render_upgrade_markdown(upgrade);
  else
    std::cout << render_upgrade_text(upgrade);
}

int run_since_pin(const Config& config, const ConsumerScan& scan, GitMirror& mirror, SignatureSource& source,
                  CallBinder& binder, const ObjectId& head, const std::string& format, Logger& log) {
  const std::string& pinned = config.consumer.pinned_commit;
  if (pinned.empty()) throw CommandError{"consumer.pinned_commit '': --since-pin needs it set in the config"};
  auto pin = mirror.resolve(pinned);
  if (!pin) throw CommandError{"consumer.pinned_commit '" + pinned + "': " + pin.error().message()};
  auto history = history_since(mirror, *pin, head, pinned);
  ConsumerCheck at_pin = value_or_throw(check_consumer(scan, source, binder, *pin));
  ConsumerCheck at_head = value_or_throw(check_consumer(scan, source, binder, head));
  auto followed = value_or_throw(blame_consumer(at_head, source, binder, history));
  log.info("Blame: the broken calls' functions followed over {} first-parent commits since the pin",
           followed);
  ConsumerUpgrade upgrade = value_or_throw(
      plan_upgrade(at_head, at_pin, history, mirror, config.repository_url, config.report.web_url));
  print_upgrade(upgrade, format);
  return upgrade_exit_code(upgrade);
}

}  // namespace

void add_check_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Bind every call site of the consumer (consumer.*) against the signatures at COMMIT");
  cmd->add_option("COMMIT", shared->commit, "The provider's commit (default: the branch head)");
  cmd->add_option("--format", shared->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  cmd->add_flag("--no-blame", shared->no_blame, "Do not look for the commit each broken call broke at");
  cmd->add_flag(
         "--since-pin", shared->since_pin,
         "What breaks if the consumer moves from consumer.pinned_commit to COMMIT: each breaking commit "
         "in between, the calls it breaks, its pull request")
      ->excludes("--no-blame");
  cmd->footer(
      "Exit codes: 0 no call breaks (guarded and unknown ones are listed); 1 a call breaks; 2 an error.");
  commands.on(cmd, shared, run_check);
}

int run_check(const CheckOptions& options, Runtime& runtime) {
  Config config = consumer_config(options);
  auto log = open_log_or_throw(config, ConsoleStream::stderr_stream);
  auto consumer = value_or_throw(ConsumerSession::open(config, runtime, *log));
  CallBinder& binder = consumer->binder();
  auto mirror = open_mirror_or_throw(config, log.get());
  ObjectId commit = commit_to_check(*mirror, config, options.commit, *log);
  // Calls through torch.ops.aiter bind against the functions registering their ops at COMMIT.
  StaticFunctionFinder finder(*mirror, runtime.python(), config.static_extraction);
  std::optional<CachedOpRegistry> cached;
  OpRegistry* registry = &finder;
  if (ResultCache* cache = consumer->cache())
    registry = &cached.emplace(finder, *cache,
                               Json{{"source_roots", config.static_extraction.source_roots},
                                    {"module_aliases", config.static_extraction.module_aliases}}
                                   .dump());
  const ConsumerScan scan = value_or_throw(with_registered_ops(consumer->scan(), *registry, commit));
  auto source = make_source_or_throw(config, *mirror, runtime, *log);
  if (options.since_pin)
    return run_since_pin(config, scan, *mirror, *source, binder, commit, options.format, *log);
  ConsumerCheck check = value_or_throw(check_consumer(scan, *source, binder, commit));
  if (!options.no_blame && check.count(Verdict::breaks) + check.count(Verdict::guarded) > 0) {
    auto history = first_parent_history(*mirror, commit);
    auto followed = blame_consumer(check, *source, binder, history);
    if (!followed)
      log->warn("Cannot find when the calls broke: {}", followed.error().message());
    else
      log->info("Blame: the broken calls' functions followed over {} first-parent commits", *followed);
  }
  print(check, options.format);
  return consumer_exit_code(check);
}

}  // namespace aaw::cli
