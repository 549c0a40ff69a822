"""A sampling profiler of the Python half, for developers (AAW_PYTHON_SAMPLE, docs/performance.md):
every 2 ms of the process's CPU time (SIGPROF), the functions on the Python stack are counted.

cProfile (AAW_PYTHON_PROFILE) times every call, which weighs code made of many small calls several
times heavier than it is; a sample costs nothing between two ticks, so the shares here are those of
a run without it. Python runs the handler between two bytecodes: a tick that falls in a long C call
(ast.parse) is counted when it returns, to its caller, and one that falls in the C++ side between
two calls of the daemon, to the first function of the next call.
Pure standard library, Python 3.9+.
"""

import collections
from typing import Optional

_INTERVAL = 0.002


class Sampler:
    def __init__(self):
        self.samples = 0
        self.inclusive = collections.Counter()  # function -> samples with it on the stack
        self.exclusive = collections.Counter()  # function -> samples with it running

    def start(self) -> None:
        # Imported here, not with this module: importing `signal` while SIGINT has its default
        # action installs Python's KeyboardInterrupt handler over it, and SIGINT is the daemon's.
        import signal
        signal.signal(signal.SIGPROF, self._tick)
        # The daemon's C++ threads may be in a system call when a tick arrives: restart it.
        signal.siginterrupt(signal.SIGPROF, False)
        signal.setitimer(signal.ITIMER_PROF, _INTERVAL, _INTERVAL)

    def stop(self) -> None:
        import signal
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, signal.SIG_IGN)

    def report(self, top: int = 60) -> str:
        """The `top` functions by inclusive share, then by exclusive share, one per line."""
        lines = ["samples %d (every %g ms of CPU time)" % (self.samples, _INTERVAL * 1000)]
        for title, counts in (("inclusive", self.inclusive), ("exclusive", self.exclusive)):
            lines.append("%s:" % title)
            for name, count in counts.most_common(top):
                lines.append("%6.1f%%  %s" % (100.0 * count / max(1, self.samples), name))
        return "\n".join(lines) + "\n"

    def _tick(self, signum, frame) -> None:
        self.samples += 1
        seen = set()
        running = True
        while frame is not None:
            code = frame.f_code
            name = "%s:%s" % (code.co_filename.rsplit("/", 1)[-1], code.co_name)
            if running:
                self.exclusive[name] += 1
                running = False
            if name not in seen:
                seen.add(name)
                self.inclusive[name] += 1
            frame = frame.f_back


_SAMPLER: Optional[Sampler] = None


def start_sampling(args=None, host=None) -> None:
    """Starts sampling this process (once); called as the daemon calls any helper."""
    global _SAMPLER
    if _SAMPLER is None:
        _SAMPLER = Sampler()
        _SAMPLER.start()


def stop_and_write(path: str) -> None:
    """Stops sampling and writes the report to `path`."""
    if _SAMPLER is None:
        return
    _SAMPLER.stop()
    with open(path, "w", encoding="utf-8") as f:
        f.write(_SAMPLER.report())
