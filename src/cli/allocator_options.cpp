// Compiled into the binary only when it is linked against jemalloc (AAW_JEMALLOC). jemalloc reads
// these defaults at its start (MALLOC_CONF in the environment still overrides them):
// - one arena: the daemon allocates from its main thread and from the thread that reads the
//   parsing helper's replies, and memory freed by one and reused by the other stays in one place
//   (an arena per thread raised peak RSS: docs/performance.md, "Memory allocator");
// - dirty pages given back after a second, and at once once purged (muzzy), so a daemon idle
//   between polls holds what it uses, not what a replay's peak needed.
extern "C" {
const char* malloc_conf = "narenas:1,dirty_decay_ms:1000,muzzy_decay_ms:0";
}
