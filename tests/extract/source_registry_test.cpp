// The source registry: the built-in kinds, the factory's errors, and a source kind that exists
// only in this test plugged in with one registration.
#include "extract/source_registry.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/compare/compare.hpp"
#include "support/fake_signature_source.hpp"

namespace aaw {
namespace {

class NoMirror final : public GitMirror {
 public:
  std::string display_url() const override { return "none"; }
  std::filesystem::path path() const override { return "/nonexistent"; }
  Result<void> fetch() override { return {}; }
  Result<ObjectId> resolve(std::string_view revision) override { return ObjectId{std::string(revision)}; }
  Result<CommitInfo> commit_info(const ObjectId& commit) override {
    return CommitInfo{commit, {}, "", "", 0, 0, "", ""};
  }
  Result<std::unique_ptr<SourceTree>> tree(const ObjectId&) override {
    return Error(ErrorCode::internal, "no trees here");
  }
  Result<ObjectId> remote_head(std::string_view) override { return Error(ErrorCode::network, "offline"); }
  Result<std::vector<ObjectId>> first_parent_range(const ObjectId&, const ObjectId&) override {
    return std::vector<ObjectId>();
  }
  Result<bool> is_ancestor(const ObjectId&, const ObjectId&) override { return true; }
  Result<std::optional<ObjectId>> merge_base(const ObjectId&, const ObjectId&) override {
    return std::optional<ObjectId>();
  }
};

SourceDeps deps_on(GitMirror& mirror, Logger& log) {
  return SourceDeps{
      mirror,
      log,
      StateDir("/nonexistent/state"),
      []() -> PythonHost& { throw std::logic_error("no interpreter in this test"); },
      [](Sandbox&) { return Result<std::unique_ptr<WorkTree>>(Error(ErrorCode::io, "no work tree here")); },
      [] { return Result<std::unique_ptr<Sandbox>>(Error(ErrorCode::io, "no sandbox here")); },
      "/usr/bin/python3",
      "3.11",
      {},
      {}};
}

TEST(SourceRegistryTest, BuiltinKindsInTheirOrder) {
  EXPECT_EQ(builtin_sources().names(),
            (std::vector<std::string>{"static", "runtime", "both", "static+import"}));
  EXPECT_FALSE(builtin_sources().find("runtime")->description.empty());
}

TEST(SourceRegistryTest, UnknownExtractorNamesTheKnownOnes) {
  NoMirror mirror;
  auto log = null_logger();
  SourceDeps deps = deps_on(mirror, *log);
  Config config;
  config.extractor = "pyi";
  auto source = builtin_sources().make(config, deps);
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().code(), ErrorCode::invalid_input);
  EXPECT_EQ(source.error().message(),
            "extractor: expected one of static, runtime, both, static+import, got 'pyi'");
}

TEST(SourceRegistryTest, RuntimeKindReportsWhatItCannotOpen) {
  NoMirror mirror;
  auto log = null_logger();
  SourceDeps deps = deps_on(mirror, *log);
  Config config;
  config.extractor = "runtime";
  auto source = builtin_sources().make(config, deps);
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().message(), "no sandbox here");
}

TEST(SourceRegistryTest, TestOnlySourcePlugsInWithOneRegistration) {
  SourceRegistry sources = builtin_sources();
  test::FakeSignatureSource* made = nullptr;
  sources.add({"table", "states from a table (tests)", [&made](const Config&, SourceDeps&) {
                 auto source = std::make_unique<test::FakeSignatureSource>();
                 source->set("c1", {SignatureState::failed(Status::missing, "not yet")});
                 source->set("c2", {SignatureState::ok(Signature{})});
                 made = source.get();
                 return Result<std::unique_ptr<SignatureSource>>(std::move(source));
               }});

  Json text = {{"repository_url", "r"},
               {"functions_to_monitor", {{{"import_statement", "import a"}, {"function_path", "a.f"}}}},
               {"extractor", "table"}};
  auto loaded = parse_config(text.dump(), "config.json", {sources.names(), {}});
  ASSERT_TRUE(loaded) << loaded.error().message();
  EXPECT_EQ(loaded->config.extractor, "table");

  NoMirror mirror;
  auto log = null_logger();
  SourceDeps deps = deps_on(mirror, *log);
  auto source = sources.make(loaded->config, deps);
  ASSERT_TRUE(source) << source.error().message();
  auto comparison = compare_commits(mirror, **source, loaded->config.functions_to_monitor, "c1", "c2");
  ASSERT_TRUE(comparison) << comparison.error().message();
  ASSERT_EQ(comparison->functions[0].changes.size(), 1u);
  EXPECT_EQ(comparison->functions[0].changes[0].kind, ChangeKind::function_added);
  EXPECT_EQ(made->asked(), (std::vector<std::string>{"c1", "c2"}));
}

}  // namespace
}  // namespace aaw
