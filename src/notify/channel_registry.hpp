// The table of notification channel kinds. The config's `notify` sections, the targets the commit
// processor queues changes for, and the channels the notifier delivers through all come from it,
// so adding a channel is one file pair defining its ChannelKind plus one line in builtin_channels().
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/config.hpp"
#include "core/model/diff.hpp"
#include "core/model/json_reader.hpp"
#include "core/watch/commit_processor.hpp"  // NotificationTarget
#include "notify/notification_channel.hpp"
#include "util/named_table.hpp"

namespace aaw {

struct ChannelKind {
  std::string name;          // the key under "notify", and the outbox target
  std::string enabling_key;  // the section key whose non-empty string makes it a target ("url")
  Severity default_min_severity = Severity::breaking;
  // Reads and validates the channel's own keys of its section (the enabling key and min_severity
  // are read for it); throws JsonReadError with the JSON path of a bad field.
  std::function<void(JsonReader&)> read;
  // The channel for a section that `read` accepted and that enables it.
  std::function<std::unique_ptr<NotificationChannel>(const Json& section, ChannelContext& context)> make;
};

// The channels a config enables, and why each known but disabled one cannot be delivered to.
struct ChannelSet {
  std::vector<std::unique_ptr<NotificationChannel>> active;
  std::map<std::string, std::string, std::less<>> unconfigured;  // target -> "notify.x.url is not configured"
};

// add(kind) (a later kind of a name replaces the earlier one), find(name), names().
class ChannelRegistry : public NamedTable<ChannelKind> {
 public:
  // The `notify` keys the config reader accepts, each read as its kind says.
  std::vector<SectionSchema> config_sections() const;

  // The enabled targets and the least severity each is told about, in registration order.
  std::vector<NotificationTarget> targets(const NotifyConfig& notify) const;

  ChannelSet make_channels(const NotifyConfig& notify, ChannelContext& context) const;

 private:
  bool enabled(const ChannelKind& kind, const NotifyConfig& notify) const;
};

// github_issue and webhook.
ChannelRegistry builtin_channels();

}  // namespace aaw
