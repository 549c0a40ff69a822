// Finding what a build left running outside its process group. The plain runner has no PID
// namespace: a build's `setsid` daemon leaves the group the runner kills. As a child subreaper,
// this process inherits every such orphan once its parent is gone, and a sweep after the run kills
// and reaps whatever became its child meanwhile. Internal to src/io/sandbox/.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <set>

namespace aaw::detail {

// Makes this process a child subreaper (PR_SET_CHILD_SUBREAPER): orphans of its descendants become
// its children instead of init's. Idempotent.
void become_subreaper();

// The children of this process now (from /proc), zombies included.
std::set<pid_t> current_children();

// Kills (SIGKILL, with its process group when that is not ours) and reaps every child of this
// process not in `before`, again and again as their own children are reparented here, until none
// is left or `limit` has passed. Returns how many processes it killed.
int sweep_escapees(const std::set<pid_t>& before, std::chrono::milliseconds limit);

}  // namespace aaw::detail
