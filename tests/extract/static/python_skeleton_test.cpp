#include "extract/static/python_skeleton.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/shared_python.hpp"
#include "util/files.hpp"

namespace aaw {
namespace {

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(PythonSkeletonTest, BlanksEachBodyLineForLineAndKeepsWhatItWas) {
  std::string source =
      "import os\n"
      "\n"
      "@decorate(1)\n"
      "def f(a, b=(1,\n"
      "          2)) -> int:  # header comment\n"
      "    \"\"\"Doc.\n"
      "def not_a_def():\n"
      "    \"\"\"\n"
      "    x = [1,\n"
      "2]\n"
      "    return a\n"
      "\n"
      "class C:\n"
      "    y: int = 0\n"
      "    async def m(self):\n"
      "        await g()\n"
      "    def one(self): return 1\n"
      "X = 3\n";
  PythonSkeleton skeleton = skeleton_of(source);
  ASSERT_TRUE(skeleton.complete);
  EXPECT_EQ(skeleton.text,
            "import os\n"
            "\n"
            "@decorate(1)\n"
            "def f(        \n"
            "                   ):  # header comment\n"
            "    pass\n"
            "\n\n\n\n\n"
            "\n"
            "class C:\n"
            "    y: int = 0\n"
            "    async def m(    ):\n"
            "        pass\n"
            "    def one(    ): return 1\n"
            "X = 3\n");
  EXPECT_EQ(line_count(skeleton.text), line_count(source));
  ASSERT_EQ(skeleton.bodies.size(), 2U);
  EXPECT_EQ(skeleton.bodies[0].def_line, 4);
  EXPECT_EQ(skeleton.bodies[0].header, "def f(a, b=(1,\n          2)) -> int:");
  EXPECT_EQ(skeleton.bodies[0].first_line, 6);
  EXPECT_EQ(skeleton.bodies[0].last_line, 11);
  EXPECT_FALSE(skeleton.bodies[0].is_async);
  EXPECT_EQ(skeleton.bodies[0].text,
            "    \"\"\"Doc.\n"
            "def not_a_def():\n"
            "    \"\"\"\n"
            "    x = [1,\n"
            "2]\n"
            "    return a\n");
  EXPECT_EQ(skeleton.bodies[1].def_line, 15);
  EXPECT_TRUE(skeleton.bodies[1].is_async);
  EXPECT_EQ(skeleton.bodies[1].header, "async def m(self):");
  EXPECT_EQ(skeleton.bodies[1].text, "        await g()\n");
}

// Parameters and return annotations are most of what parsing a skeleton builds: they are blanked
// with their line ends kept, and the header is handed over as it was, to be parsed on its own.
TEST(PythonSkeletonTest, ParametersAreBlankedAndTheHeaderKept) {
  PythonSkeleton skeleton = skeleton_of(
      "def f(a,  # a comment (\n"
      "      b='''x\n"
      "y:'''):\n"
      "    return a\n"
      "def g(a: int) \\\n"
      "        -> int:\n"
      "    return a\n");
  ASSERT_TRUE(skeleton.complete);
  EXPECT_EQ(skeleton.text,
            "def f(                 \n"
            "            \n"
            "     ):\n"
            "    pass\n"
            "def g(         \n"
            "             ):\n"
            "    pass\n");
  ASSERT_EQ(skeleton.bodies.size(), 2U);
  EXPECT_EQ(skeleton.bodies[0].header, "def f(a,  # a comment (\n      b='''x\ny:'''):");
  EXPECT_EQ(skeleton.bodies[1].header, "def g(a: int) \\\n        -> int:");
}

// A header that cannot be read back alone with confidence keeps its parameters (and its def its
// nodes): one that is not ASCII, a continuation right before the colon, a name without brackets
// after it (3.12's type parameters; a syntax error in 3.11).
TEST(PythonSkeletonTest, HeadersThatDoNotReadBackAloneAreKept) {
  for (std::string header : {"def f(\xc3\xa9=1):", "def f(a) \\\n:", "def f[T](a):"}) {
    PythonSkeleton skeleton = skeleton_of(header + "\n    return 1\n");
    ASSERT_TRUE(skeleton.complete) << header;
    ASSERT_EQ(skeleton.bodies.size(), 1U) << header;
    EXPECT_EQ(skeleton.bodies[0].header, "") << header;
    EXPECT_EQ(skeleton.text, header + "\n    pass\n") << header;
  }
}

// A body on its header's line is kept, and the header blanked: aiter declares its compiled
// kernels as stubs, `def f(many parameters) -> Tensor: ...`. A module-level __getattr__ is kept
// whole (the resolver reads its parameters and its body).
TEST(PythonSkeletonTest, AHeaderOverABodyOnItsLineIsBlankedAndTheBodyKept) {
  PythonSkeleton skeleton = skeleton_of(
      "@compile_ops('m')\n"
      "def f(a: Tensor,\n"
      "      b: int = 0) -> Tensor: ...\n"
      "def __getattr__(name): return name\n"
      "class C:\n"
      "    def __getattr__(self, name): return 1\n"
      "def g(\xc3\xa9): ...\n");
  ASSERT_TRUE(skeleton.complete);
  EXPECT_EQ(skeleton.text,
            "@compile_ops('m')\n"
            "def f(          \n"
            "                          ): ...\n"
            "def __getattr__(name): return name\n"
            "class C:\n"
            "    def __getattr__(          ): return 1\n"
            "def g(\xc3\xa9): ...\n");
  EXPECT_TRUE(skeleton.bodies.empty());
  ASSERT_EQ(skeleton.headers.size(), 2U);
  EXPECT_EQ(skeleton.headers[0].def_line, 2);
  EXPECT_EQ(skeleton.headers[0].text, "def f(a: Tensor,\n      b: int = 0) -> Tensor:");
  EXPECT_EQ(skeleton.headers[1].def_line, 6);
  EXPECT_EQ(skeleton.headers[1].text, "def __getattr__(self, name):");
}

// What reaches aaw_summary: each blanked body, with its header when that was blanked too.
TEST(PythonSkeletonTest, ItsJsonCarriesTheHeadersThatWereBlanked) {
  std::string text = "def f(a):\n    return a\ndef g(\xc3\xa9):\n    return 1\n";
  nlohmann::json json = skeleton_json(text);
  ASSERT_EQ(json["complete"], true);
  EXPECT_EQ(json["text"], "def f( ):\n    pass\ndef g(\xc3\xa9):\n    pass\n");
  ASSERT_EQ(json["bodies"].size(), 2U);
  EXPECT_EQ(json["bodies"][0],
            (nlohmann::json{
                {"def_line", 1}, {"async", false}, {"text", "    return a\n"}, {"header", "def f(a):"}}));
  EXPECT_FALSE(json["bodies"][1].contains("header"));
  EXPECT_EQ(json["headers"], nlohmann::json::array());
  text = "def f(a): ...\n";
  json = skeleton_json(text);
  EXPECT_EQ(json["text"], "def f( ): ...\n");
  EXPECT_EQ(json["headers"], (nlohmann::json{{{"def_line", 1}, {"header", "def f(a):"}}}));
  std::string broken = "def f(:\n";
  EXPECT_EQ(skeleton_json(broken), (nlohmann::json{{"complete", false}, {"text", "def f(:\n"}}));
}

TEST(PythonSkeletonTest, NestedDefsGoWithTheBodyThatHoldsThem) {
  PythonSkeleton skeleton = skeleton_of(
      "def outer(fn):\n"
      "    def inner(*a):\n"
      "        return fn(*a)\n"
      "    return inner\n"
      "y = 1");
  ASSERT_TRUE(skeleton.complete);
  ASSERT_EQ(skeleton.bodies.size(), 1U);
  EXPECT_EQ(skeleton.bodies[0].text, "    def inner(*a):\n        return fn(*a)\n    return inner\n");
  EXPECT_EQ(skeleton.text, "def outer(  ):\n    pass\n\n\ny = 1");
}

TEST(PythonSkeletonTest, StringsCommentsAndContinuationsDoNotEndOrStartLines) {
  PythonSkeleton skeleton = skeleton_of(
      "def f():\n"
      "    s = rb'it''s' + f\"{x['k']}\" + 'a\\'b' \\\n"
      "  + 'c'  # def g(): ) ] }\n"
      "    t = '''\n"
      "'''\n"
      "z = f()\n");
  ASSERT_TRUE(skeleton.complete);
  ASSERT_EQ(skeleton.bodies.size(), 1U);
  EXPECT_EQ(skeleton.bodies[0].last_line, 5);
  EXPECT_EQ(skeleton.text, "def f():\n    pass\n\n\n\nz = f()\n");
}

TEST(PythonSkeletonTest, CrLfLineEndsCountAsOneLine) {
  PythonSkeleton skeleton = skeleton_of("def f():\r\n    return 1\r\n\r\nx = 2\r\n");
  ASSERT_TRUE(skeleton.complete);
  EXPECT_EQ(skeleton.text, "def f():\r\n    pass\n\r\nx = 2\r\n");
  EXPECT_EQ(skeleton.bodies[0].text, "    return 1\r\n");
}

TEST(PythonSkeletonTest, AModuleLevelGetattrIsKeptWhole) {
  std::string source =
      "def __getattr__(name):\n"
      "    if name == 'f':\n"
      "        from .m import f\n"
      "        return f\n"
      "class C:\n"
      "    def __getattr__(self, name):\n"
      "        return 1\n";
  PythonSkeleton skeleton = skeleton_of(source);
  ASSERT_TRUE(skeleton.complete);
  ASSERT_EQ(skeleton.bodies.size(), 1U);
  EXPECT_EQ(skeleton.bodies[0].def_line, 6);
}

TEST(PythonSkeletonTest, WhatItCannotSplitWithConfidenceIsIncomplete) {
  EXPECT_FALSE(skeleton_of("def f():\n    x = (1,\n").complete);                  // unbalanced
  EXPECT_FALSE(skeleton_of("x = )\n").complete);                                  // closes nothing
  EXPECT_FALSE(skeleton_of("def f():\n    return '''\n").complete);               // unterminated
  EXPECT_FALSE(skeleton_of("def f():\n    return 'a\n").complete);                // unterminated
  EXPECT_FALSE(skeleton_of("def f():\n\treturn 1\n").complete);                   // tabs
  EXPECT_FALSE(skeleton_of("def f():\n    return 1\rx = 2\n").complete);          // lone CR
  EXPECT_FALSE(skeleton_of(std::string("x = 1\0\n", 7)).complete);                // NUL
  EXPECT_FALSE(skeleton_of("def f():\nx = 1\n").complete);                        // no body
  EXPECT_FALSE(skeleton_of("import sys\nsys.meta_path.append(F())\n").complete);  // an import hook
  // A replacement field that holds its f-string's own quote (Python 3.12) is not split here.
  EXPECT_FALSE(skeleton_of("def f(d):\n    return f\"{d[\"k\"]}\"\n").complete);
  EXPECT_FALSE(skeleton_of("def f(d):\n    return f'''{d['''k''']}'''\n").complete);
}

TEST(PythonSkeletonTest, FStringFieldsAreReadUpToTheirClosingBrace) {
  PythonSkeleton skeleton = skeleton_of(
      "def f(d, w):\n"
      "    return f\"{{x}} {d['}']:{w}} {(1, [2])!r}\" + F'{{'\n"
      "y = 1\n");
  ASSERT_TRUE(skeleton.complete);
  ASSERT_EQ(skeleton.bodies.size(), 1U);
  EXPECT_EQ(skeleton.text, "def f(    ):\n    pass\ny = 1\n");
  // In a triple-quoted f-string a field may hold one of its quotes (Python 3.11 too).
  skeleton = skeleton_of("def g(d):\n    return f\"\"\"{d[\"k\"]}\n\"\"\"\n");
  ASSERT_TRUE(skeleton.complete);
  EXPECT_EQ(skeleton.text, "def g( ):\n    pass\n\n");
}

TEST(PythonSkeletonTest, ATextWithNoDefIsItself) {
  std::string source = "from .a import *\n__all__ = ['x']  # done\n";
  PythonSkeleton skeleton = skeleton_of(source);
  ASSERT_TRUE(skeleton.complete);
  EXPECT_EQ(skeleton.text, source);
  EXPECT_TRUE(skeleton.bodies.empty());
  EXPECT_TRUE(skeleton_of("").complete);
}

// The summary a skeleton gives must be the one its whole text gives: every name's digest (with what
// its def's body says), the module's imports, hooks and positions. Over a corpus of real modules,
// when AAW_SKELETON_CORPUS names a directory of .py files (bench/skeleton_corpus.sh makes one from
// a repository's history); skipped otherwise.
constexpr const char* k_compare_module = R"(
import aaw_digest
import aaw_summary

def compare(args, host):
    full = aaw_summary.summarize(args["text"])
    skeleton = args["skeleton"]
    if not skeleton["complete"]:
        return "incomplete"
    made = aaw_summary.SummaryCache()._from_skeleton(skeleton)
    if isinstance(full, aaw_summary.ParseFailure):
        return "ok" if made is None else "a skeleton of a text that does not parse was summarised"
    if made is None:
        return "the whole text parses but its skeleton was not summarised"
    if sorted(full.bindings) != sorted(made.bindings):
        return "names differ"
    asks = [[name, aaw_digest.body_of(name)] for name in full.bindings]
    asks += [[aaw_digest.IMPORTS, aaw_digest.HOOKS], [aaw_digest.POSITIONS] + sorted(full.bindings), ["*"]]
    for names in asks:
        if aaw_digest.safe_digest(full, names) != aaw_digest.safe_digest(made, names):
            return "digest of %s differs" % names
    return "ok"
)";

TEST(PythonSkeletonCorpusTest, EachSkeletonSummarisesAsItsWholeText) {
  const char* corpus = std::getenv("AAW_SKELETON_CORPUS");
  if (corpus == nullptr) GTEST_SKIP() << "AAW_SKELETON_CORPUS is not set";
  ASSERT_TRUE(test::shared_python().install_module("aaw_skeleton_compare", k_compare_module));
  int files = 0, incomplete = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(corpus)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".py") continue;
    auto text = read_file(entry.path().string());
    ASSERT_TRUE(text) << "cannot read " << entry.path();
    std::string copy = *text;
    nlohmann::json args{{"text", *text}, {"skeleton", skeleton_json(copy)}};
    auto verdict = test::shared_python().call("aaw_skeleton_compare", "compare", args, {});
    ASSERT_TRUE(verdict) << entry.path() << ": " << verdict.error().message();
    ++files;
    if (*verdict == "incomplete") {
      ++incomplete;
      continue;
    }
    EXPECT_EQ(*verdict, "ok") << entry.path();
  }
  std::printf("%d modules, %d without a skeleton (parsed whole)\n", files, incomplete);
}

}  // namespace
}  // namespace aaw
