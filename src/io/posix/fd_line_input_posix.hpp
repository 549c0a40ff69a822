// Lines of a file descriptor (a pipe): LineInput that can tell, without waiting, whether a whole
// line has arrived.
#pragma once

#include <memory>

#include "core/ports/line_input.hpp"

namespace aaw {

// Reads `fd` (not owned: it stays open).
std::unique_ptr<LineInput> make_fd_line_input(int fd);

}  // namespace aaw
