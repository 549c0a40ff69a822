#include "notify/channel_registry.hpp"

#include <nlohmann/json.hpp>

#include "notify/github_issue_channel.hpp"
#include "notify/webhook_channel.hpp"

namespace aaw {
namespace {

std::vector<std::string> severity_names() {
  std::vector<std::string> names;
  for (Severity s : {Severity::annotation, Severity::compatible, Severity::behavioural, Severity::unknown,
                     Severity::breaking})
    names.emplace_back(to_string(s));
  return names;
}

const Json* section_of(const NotifyConfig& notify, std::string_view name) {
  auto found = notify.sections.find(name);
  return found == notify.sections.end() ? nullptr : &found->second;
}

}  // namespace

std::vector<SectionSchema> ChannelRegistry::config_sections() const {
  std::vector<SectionSchema> out;
  for (const ChannelKind& kind : entries()) {
    out.push_back({kind.name, [kind](JsonReader& r) {
                     std::string enabling, severity;
                     bool only_if_consumer_breaks = false;
                     r.string(kind.enabling_key, enabling);
                     r.choice("min_severity", severity, severity_names());
                     r.boolean("only_if_consumer_breaks", only_if_consumer_breaks);
                     if (kind.read) kind.read(r);
                   }});
  }
  return out;
}

bool ChannelRegistry::enabled(const ChannelKind& kind, const NotifyConfig& notify) const {
  const Json* section = section_of(notify, kind.name);
  if (!section || !section->is_object()) return false;
  auto value = section->find(kind.enabling_key);
  return value != section->end() && value->is_string() && !value->get<std::string>().empty();
}

std::vector<NotificationTarget> ChannelRegistry::targets(const NotifyConfig& notify) const {
  std::vector<NotificationTarget> out;
  for (const ChannelKind& kind : entries()) {
    if (!enabled(kind, notify)) continue;
    Severity severity = kind.default_min_severity;
    const Json& section = *section_of(notify, kind.name);
    if (auto text = section.find("min_severity"); text != section.end() && text->is_string())
      severity = parse_severity(text->get<std::string>()).value_or(severity);
    auto only = section.find("only_if_consumer_breaks");
    out.push_back({kind.name, severity, only != section.end() && only->is_boolean() && only->get<bool>()});
  }
  return out;
}

ChannelSet ChannelRegistry::make_channels(const NotifyConfig& notify, ChannelContext& context) const {
  ChannelSet set;
  for (const ChannelKind& kind : entries()) {
    if (enabled(kind, notify)) {
      set.active.push_back(kind.make(*section_of(notify, kind.name), context));
    } else {
      set.unconfigured[kind.name] = "notify." + kind.name + "." + kind.enabling_key + " is not configured";
    }
  }
  return set;
}

ChannelRegistry builtin_channels() {
  ChannelRegistry registry;
  registry.add(github_issue_channel_kind());
  registry.add(webhook_channel_kind());
  return registry;
}

}  // namespace aaw
