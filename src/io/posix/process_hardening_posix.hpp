// What the daemon does to itself so that the code it builds and imports (which runs as the same
// user under the plain sandbox) cannot read its secrets: the token leaves the environment, and the
// process cannot be inspected. See docs/threat-model.md.
#pragma once

#include <string>

namespace aaw {

// The value of environment variable `name`, taken out of this process's environment: unset, and
// its bytes overwritten in the block the kernel shows as /proc/<pid>/environ (the environment the
// process started with, which unsetenv alone leaves readable there). "" when it is not set.
std::string take_environment_secret(const char* name);

// Makes this process non-dumpable: no core file, and another process of the same user (a build)
// can neither read its memory or /proc/<pid>/environ nor ptrace it. Children are not affected
// (exec makes them dumpable again).
void forbid_inspection();

}  // namespace aaw
