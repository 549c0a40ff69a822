#include "cli/completion_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "util/strings.hpp"

namespace aaw::cli {
namespace {

constexpr const char* k_function = "_aiter_api_watcher";

// The values an option accepts when a validator lists them: CLI11 shows "TEXT:{text,json}".
std::vector<std::string> choices_of(const CLI::Option& option) {
  std::string type = option.get_type_name();
  auto open = type.find('{');
  auto close = type.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return {};
  std::vector<std::string> out;
  std::string list = type.substr(open + 1, close - open - 1);
  for (std::size_t start = 0, comma = 0; comma != std::string::npos; start = comma + 1) {
    comma = list.find(',', start);
    out.push_back(trim(list.substr(start, comma == std::string::npos ? comma : comma - start)));
  }
  return out;
}

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
    out.push_back(sub);
  return out;
}

// "--format --help ..." of `app`, and the `case "$prev"` lines of its options that take values.
std::string words_of(const CLI::App& app, std::string& value_cases) {
  std::vector<std::string> words;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) words.push_back("--" + name);
    if (option->get_lnames().empty() || option->get_expected_max() == 0) continue;
    std::string prev = "--" + option->get_lnames().front();
    auto choices = choices_of(*option);
    if (!choices.empty())
      value_cases += "      " + prev + ") COMPREPLY=($(compgen -W '" + join(choices, " ") +
                     "' -- \"$cur\")); return;;\n";
    else if (prev == "--config")
      value_cases += "      " + prev + ") COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n";
    else
      value_cases += "      " + prev + ") return;;\n";
  }
  return join(words, " ");
}

}  // namespace

std::string bash_completion(const CLI::App& app) {
  std::string subcommands, cases, top_values;
  std::string top_words = words_of(app, top_values);
  for (const CLI::App* sub : visible_subcommands(app)) {
    subcommands += (subcommands.empty() ? "" : "|") + sub->get_name();
    std::string values;
    std::string words = words_of(*sub, values);
    cases += "    " + sub->get_name() + ")\n    case \"$prev\" in\n" + values + "    esac\n" +
             "    COMPREPLY=($(compgen -W '" + words + "' -- \"$cur\"));;\n";
  }
  std::string names;
  for (const CLI::App* sub : visible_subcommands(app)) names += (names.empty() ? "" : " ") + sub->get_name();
  return std::string(
             "# bash completion for aiter-api-watcher: source <(aiter-api-watcher completion bash)\n") +
         k_function + "() {\n" +
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" sub= i\n" +
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n" + "    case \"${COMP_WORDS[i]}\" in " + subcommands +
         ") sub=\"${COMP_WORDS[i]}\"; break;; esac\n" + "  done\n" + "  case \"$sub\" in\n" +
         "    \"\")\n    case \"$prev\" in\n" + top_values + "    esac\n" + "    COMPREPLY=($(compgen -W '" +
         names + " " + top_words + "' -- \"$cur\"));;\n" + cases + "  esac\n" + "}\n" +
         "complete -o default -F " + k_function + " aiter-api-watcher\n";
}

void add_completion_command(CLI::App& app, Commands& commands) {
  auto shell = std::make_shared<std::string>("bash");
  CLI::App* cmd = app.add_subcommand(
      "completion", "Print a shell completion script: source <(aiter-api-watcher completion bash)");
  cmd->add_option("SHELL", *shell, "The shell")->check(CLI::IsMember({"bash"}))->capture_default_str();
  cmd->footer("Exit codes: 0 printed; 2 an unknown shell.");
  // `shell` lives as long as the runner: CLI11 writes the parsed value into it.
  commands.on(cmd, [&app, shell](AppContext&) {
    std::cout << bash_completion(app);
    return 0;
  });
}

}  // namespace aaw::cli
