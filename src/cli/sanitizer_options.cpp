// Compiled into the binary only in sanitized builds (AAW_SANITIZE). The sandbox gives the
// children this binary re-runs as (__extract, __checkout, __git) an allow-listed environment, so
// ASAN_OPTIONS does not reach them: their defaults are set here. handle_segv=0 keeps a segfault a
// signal 11, as in a normal build, so that an import crashing its child is reported as it is.
extern "C" const char* __asan_default_options();

extern "C" const char* __asan_default_options() { return "handle_segv=0"; }
