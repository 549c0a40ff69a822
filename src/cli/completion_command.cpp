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

// What follows an option on the command line, as every shell's script tells it: nothing (a flag),
// one of its validator's choices, a file (--config), or any text.
struct OptionValue {
  enum Kind { none, choice, file, text } kind;
  std::vector<std::string> choices;  // for `choice`
};

OptionValue value_of(const CLI::Option& option) {
  if (option.get_expected_max() == 0) return {OptionValue::none, {}};
  if (auto choices = choices_of(option); !choices.empty()) return {OptionValue::choice, std::move(choices)};
  if (!option.get_lnames().empty() && option.get_lnames().front() == "config") return {OptionValue::file, {}};
  return {OptionValue::text, {}};
}

// "--format --help ..." of `app`, and the `case "$prev"` lines of its options that take values.
std::string words_of(const CLI::App& app, std::string& value_cases) {
  std::vector<std::string> words;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) words.push_back("--" + name);
    if (option->get_lnames().empty()) continue;
    const std::string prev = "--" + option->get_lnames().front();
    const OptionValue value = value_of(*option);
    if (value.kind == OptionValue::choice)
      value_cases += "      " + prev + ") COMPREPLY=($(compgen -W '" + join(value.choices, " ") +
                     "' -- \"$cur\")); return;;\n";
    else if (value.kind == OptionValue::file)
      value_cases += "      " + prev + ") COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n";
    else if (value.kind == OptionValue::text)
      value_cases += "      " + prev + ") return;;\n";
  }
  return join(words, " ");
}

// An option's description cut to its first clause, for the one line a completion menu shows.
std::string short_description(const std::string& text) {
  std::string out = text.substr(0, text.find_first_of("(\n"));
  if (auto stop = out.find(": "); stop != std::string::npos) out = out.substr(0, stop);
  if (auto stop = out.find(". "); stop != std::string::npos) out = out.substr(0, stop);
  return trim(out);
}

// `text` inside single quotes of a POSIX shell (zsh): ' becomes '\''.
std::string single_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A description inside a zsh _arguments spec's [...]: its brackets and colons escaped.
std::string zsh_bracketed(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// The _arguments specs of `app`'s options: '--format[Output format]:value:(text json)'.
std::string zsh_option_specs(const CLI::App& app, const std::string& indent) {
  std::string out;
  for (const CLI::Option* option : app.get_options()) {
    std::vector<std::string> names;
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    if (names.empty()) continue;  // a positional argument
    const OptionValue taken = value_of(*option);
    const std::string value = taken.kind == OptionValue::choice ? ":value:(" + join(taken.choices, " ") + ")"
                              : taken.kind == OptionValue::file ? ":file:_files"
                              : taken.kind == OptionValue::text ? ":value: "
                                                                : "";
    for (const std::string& name : names)
      out += indent +
             single_quoted(name + "[" + zsh_bracketed(short_description(option->get_description())) + "]" +
                           value) +
             " \\\n";
  }
  return out;
}

// `text` inside fish's single quotes: \ and ' escaped.
std::string fish_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

// The `complete` lines of `app`'s options, each under `condition`.
std::string fish_option_lines(const CLI::App& app, const std::string& condition) {
  std::string out;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_lnames().empty() && option->get_snames().empty()) continue;
    std::string line = "complete -c aiter-api-watcher -n " + fish_quoted(condition);
    for (const std::string& name : option->get_snames()) line += " -s " + name;
    for (const std::string& name : option->get_lnames()) line += " -l " + name;
    const OptionValue value = value_of(*option);
    if (value.kind == OptionValue::choice)
      line += " -x -a " + fish_quoted(join(value.choices, " "));
    else if (value.kind == OptionValue::file)
      line += " -r -F";
    else if (value.kind == OptionValue::text)
      line += " -x";
    out += line + " -d " + fish_quoted(short_description(option->get_description())) + "\n";
  }
  return out;
}

}  // namespace

std::string zsh_completion(const CLI::App& app) {
  std::string commands, cases;
  for (const CLI::App* sub : visible_subcommands(app)) {
    commands +=
        "    " + single_quoted(sub->get_name() + ":" + short_description(sub->get_description())) + "\n";
    cases += "        " + sub->get_name() + ")\n          _arguments \\\n" +
             zsh_option_specs(*sub, "            ") + "            '*: :_default' && ret=0 ;;\n";
  }
  return std::string("#compdef aiter-api-watcher\n") +
         "# zsh completion for aiter-api-watcher: source <(aiter-api-watcher completion zsh) after "
         "compinit,\n"
         "# or save it as _aiter-api-watcher in a directory of $fpath.\n" +
         k_function + "() {\n" + "  local curcontext=\"$curcontext\" state line ret=1\n" +
         "  local -a commands\n  commands=(\n" + commands + "  )\n" + "  _arguments -C \\\n" +
         zsh_option_specs(app, "    ") + "    '1: :->command' \\\n    '*:: :->argument' && ret=0\n" +
         "  case $state in\n" +
         "    command) _describe -t commands 'aiter-api-watcher command' commands && ret=0 ;;\n" +
         "    argument)\n      case $words[1] in\n" + cases + "      esac ;;\n  esac\n  return ret\n}\n" +
         "if [[ \"${zsh_eval_context[-1]}\" == loadautoload ]]; then\n  " + k_function +
         " \"$@\"\nelse\n  compdef " + k_function + " aiter-api-watcher\nfi\n";
}

std::string fish_completion(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : visible_subcommands(app)) names += (names.empty() ? "" : " ") + sub->get_name();
  std::string out =
      "# fish completion for aiter-api-watcher: aiter-api-watcher completion fish | source\n"
      "# (or save it as ~/.config/fish/completions/aiter-api-watcher.fish)\n"
      "complete -c aiter-api-watcher -f\n";
  const std::string no_subcommand = "not __fish_seen_subcommand_from " + names;
  for (const CLI::App* sub : visible_subcommands(app))
    out += "complete -c aiter-api-watcher -n " + fish_quoted(no_subcommand) + " -a " + sub->get_name() +
           " -d " + fish_quoted(short_description(sub->get_description())) + "\n";
  out += fish_option_lines(app, "true");
  for (const CLI::App* sub : visible_subcommands(app))
    out += fish_option_lines(*sub, "__fish_seen_subcommand_from " + sub->get_name());
  return out;
}

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
  cmd->add_option("SHELL", *shell, "The shell")
      ->check(CLI::IsMember({"bash", "zsh", "fish"}))
      ->capture_default_str();
  cmd->footer(
      "bash: source <(aiter-api-watcher completion bash). zsh (after compinit): source <(aiter-api-watcher "
      "completion zsh). fish: aiter-api-watcher completion fish | source.\nExit codes: 0 printed; 2 an "
      "unknown "
      "shell.");
  // `shell` lives as long as the runner: CLI11 writes the parsed value into it.
  commands.on(cmd, [&app, shell](AppContext&) {
    if (*shell == "zsh")
      std::cout << zsh_completion(app);
    else if (*shell == "fish")
      std::cout << fish_completion(app);
    else
      std::cout << bash_completion(app);
    return 0;
  });
}

}  // namespace aaw::cli
