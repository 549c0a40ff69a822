#include "extract/static/static_extractor.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/fake_source_tree.hpp"
#include "support/shared_python.hpp"

namespace aaw {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Every test runs against the real interpreter and src/python/aaw_static.py, with the commit's
// files in a FakeSourceTree. Expected texts are what inspect.signature prints for the same def.
class StaticExtractorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The parse cache outlives calls by design; start each test cold so read counts are exact.
    ASSERT_TRUE(test::clear_python_cache());
  }

  void write(const std::string& path, std::string content) { m_tree.write(path, std::move(content)); }

  std::vector<Extraction> extract(const std::vector<MonitoredFunction>& functions) {
    auto extractions = m_extractor.extract(m_tree, functions);
    EXPECT_TRUE(extractions) << extractions.error().message();
    return extractions ? *extractions : std::vector<Extraction>(functions.size());
  }

  Extraction extract_one(const std::string& import_statement, const std::string& function_path) {
    return extract({{import_statement, function_path}}).at(0);
  }

  // The signature text when ok, else "status: detail".
  std::string resolve(const std::string& import_statement, const std::string& function_path) {
    return extract_one(import_statement, function_path).state.summary();
  }

  test::FakeSourceTree m_tree;
  StaticExtractor m_extractor{test::shared_python()};
};

// --- the parse cache -----------------------------------------------------------------------------

TEST_F(StaticExtractorTest, StaticCacheMbBoundsTheInterpretersCacheAndParsesAreCounted) {
  write("pkg/__init__.py", "def f(a): pass\ndef g(b): pass\n");
  StaticConfig small;
  small.cache_mb = 3;
  StaticExtractor extractor{test::shared_python(), small};
  auto before = extractor.parse_stats();
  ASSERT_TRUE(before) << before.error().message();
  ASSERT_TRUE(extractor.extract(m_tree, {{"import pkg", "pkg.f"}, {"import pkg", "pkg.g"}}));
  auto stats = test::shared_python().call("aaw_static", "stats", nullptr, {});
  ASSERT_TRUE(stats) << stats.error().message();
  EXPECT_EQ((*stats)["limit_bytes"], 3 << 20);
  auto after = extractor.parse_stats();
  ASSERT_TRUE(after) << after.error().message();
  EXPECT_EQ(after->parses - before->parses, 1);  // one module, parsed once for both functions
  EXPECT_EQ(after->distinct_blobs - before->distinct_blobs, 1);
  ASSERT_TRUE(m_extractor.extract(m_tree, {{"import pkg", "pkg.f"}}));  // the default bound again
}

// --- the import statement -----------------------------------------------------------------------

TEST_F(StaticExtractorTest, ResolvesImportPackageThenAttribute) {
  write("pkg/__init__.py", "def f(a, b=1):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(a, b=1)");
}

TEST_F(StaticExtractorTest, ResolvesImportOfDottedModule) {
  write("pkg/__init__.py", "");
  write("pkg/sub.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("import pkg.sub", "pkg.sub.f"), "(a)");
}

TEST_F(StaticExtractorTest, ImportOfDottedModuleReachesTheSubmoduleEvenIfThePackageRebindsIt) {
  write("pkg/__init__.py", "sub = None\n");
  write("pkg/sub.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("import pkg.sub", "pkg.sub.f"), "(a)");
}

TEST_F(StaticExtractorTest, ResolvesImportAsAlias) {
  write("pkg/__init__.py", "");
  write("pkg/sub.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("import pkg.sub as c", "c.f"), "(a)");
}

TEST_F(StaticExtractorTest, ResolvesFromImport) {
  write("pkg/__init__.py", "");
  write("pkg/sub.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("from pkg.sub import f", "f"), "(a)");
}

TEST_F(StaticExtractorTest, ResolvesFromImportAs) {
  write("pkg/__init__.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("from pkg import f as g", "g"), "(a)");
}

TEST_F(StaticExtractorTest, ResolvesFromImportOfSubmodule) {
  write("pkg/__init__.py", "");
  write("pkg/sub.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("from pkg import sub", "sub.f"), "(a)");
}

TEST_F(StaticExtractorTest, ResolvesFromImportStar) {
  write("pkg/__init__.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("from pkg import *", "f"), "(a)");
}

TEST_F(StaticExtractorTest, ReportsRelativeImportStatementAsUnresolved) {
  write("pkg/__init__.py", "def f(a):\n    pass\n");

  EXPECT_THAT(resolve("from . import f", "f"), StartsWith("unresolved: relative import"));
}

TEST_F(StaticExtractorTest, ReportsStatementThatIsNotOneImportAsUnresolved) {
  EXPECT_THAT(resolve("x = 1", "x"), StartsWith("unresolved: "));
  EXPECT_THAT(resolve("import a; import b", "a.f"), StartsWith("unresolved: "));
  EXPECT_THAT(resolve("import (", "f"), StartsWith("unresolved: cannot parse"));
}

TEST_F(StaticExtractorTest, ReportsNameNotBoundByTheImportAsUnresolved) {
  write("pkg/__init__.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "other.f"), "unresolved: 'other' is not bound by 'import pkg'");
}

TEST_F(StaticExtractorTest, ReportsMalformedFunctionPathAsUnresolved) {
  write("pkg/__init__.py", "def f(a):\n    pass\n");

  EXPECT_THAT(resolve("import pkg", "pkg..f"), StartsWith("unresolved: "));
  EXPECT_THAT(resolve("import pkg", ""), StartsWith("unresolved: "));
}

// --- star imports -------------------------------------------------------------------------------

TEST_F(StaticExtractorTest, FollowsStarImportOfPublicNamesWithoutAll) {
  write("pkg/__init__.py", "from .impl import *\n");
  write("pkg/impl.py", "def f(a):\n    pass\n\ndef _g(b):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(a)");
  EXPECT_EQ(resolve("import pkg", "pkg._g"), "missing: '_g' not found in module 'pkg'");
}

TEST_F(StaticExtractorTest, FollowsStarImportHonouringAll) {
  write("pkg/__init__.py", "from .impl import *\n");
  write("pkg/impl.py", "__all__ = ('g',)\n\ndef f(a):\n    pass\n\ndef g(b):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.g"), "(b)");
  EXPECT_EQ(resolve("import pkg", "pkg.f"), "missing: 'f' not found in module 'pkg'");
}

TEST_F(StaticExtractorTest, FollowsStarImportHonouringExtendedAll) {
  write("pkg/__init__.py", "from .impl import *\n");
  write("pkg/impl.py",
        "__all__ = ['a']\n__all__ += ['f']\n__all__.extend(['g'])\n\n"
        "def f(x):\n    pass\n\ndef g(y):\n    pass\n\ndef h(z):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(x)");
  EXPECT_EQ(resolve("import pkg", "pkg.g"), "(y)");
  EXPECT_THAT(resolve("import pkg", "pkg.h"), StartsWith("missing: "));
}

TEST_F(StaticExtractorTest, FollowsChainsOfStarImports) {
  write("pkg/__init__.py", "from .ops import *\n");
  write("pkg/ops/__init__.py", "from .impl import *\n");
  write("pkg/ops/impl.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(a)");
}

TEST_F(StaticExtractorTest, LaterStarImportOverridesEarlierDef) {
  write("pkg/__init__.py", "def f(old):\n    pass\n\nfrom .impl import *\n");
  write("pkg/impl.py", "def f(new):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(new)");
}

TEST_F(StaticExtractorTest, LaterDefOverridesEarlierStarImport) {
  write("pkg/__init__.py", "from .impl import *\n\ndef f(new):\n    pass\n");
  write("pkg/impl.py", "def f(old):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(new)");
}

TEST_F(StaticExtractorTest, StarImportNotExportingTheNameKeepsTheEarlierBinding) {
  write("pkg/__init__.py", "def f(a):\n    pass\n\nfrom .other import *\n");
  write("pkg/other.py", "def g(b):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(a)");
}

// --- relative imports and aliases --------------------------------------------------------------

TEST_F(StaticExtractorTest, FollowsRelativeImportOfSibling) {
  write("pkg/__init__.py", "from .m import f\n");
  write("pkg/m.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(a)");
}

TEST_F(StaticExtractorTest, FollowsRelativeImportOfParentPackage) {
  write("pkg/__init__.py", "");
  write("pkg/m.py", "def f(a):\n    pass\n");
  write("pkg/sub/__init__.py", "");
  write("pkg/sub/user.py", "from ..m import f\n");

  EXPECT_EQ(resolve("from pkg.sub.user import f", "f"), "(a)");
}

TEST_F(StaticExtractorTest, FollowsFromDotImportOfSubmodule) {
  write("pkg/__init__.py", "from . import m\n");
  write("pkg/m.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.m.f"), "(a)");
}

TEST_F(StaticExtractorTest, FollowsAssignmentAlias) {
  write("pkg/__init__.py", "def f(a):\n    pass\n\ng = f\n");

  EXPECT_EQ(resolve("import pkg", "pkg.g"), "(a)");
}

TEST_F(StaticExtractorTest, AliasFollowsTheBindingBeforeIt) {
  write("pkg/__init__.py", "def f(old):\n    pass\n\ng = f\n\ndef f(new):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.g"), "(old)");
}

TEST_F(StaticExtractorTest, FollowsDottedAliasThroughAModule) {
  write("pkg/__init__.py", "from . import m\n\ng = m.f\n");
  write("pkg/m.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.g"), "(a)");
}

TEST_F(StaticExtractorTest, FollowsImportAsRename) {
  write("pkg/__init__.py", "from .m import f as g\n");
  write("pkg/m.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.g"), "(a)");
}

TEST_F(StaticExtractorTest, ReportsNameBoundToExpressionAsUnresolved) {
  write("pkg/__init__.py", "import functools\n\ndef f(a, b):\n    pass\n\ng = make(1) + 2\n");

  EXPECT_EQ(resolve("import pkg", "pkg.g"),
            "unresolved: 'g' is bound to an expression at pkg/__init__.py:6: make(1) + 2");
}

TEST_F(StaticExtractorTest, ReportsNameMadeByACallItCannotFollowAsUnverified) {
  write("pkg/__init__.py", "import functools\n\ndef f(a, b):\n    pass\n\ng = make(f, 1)\n");

  EXPECT_EQ(resolve("import pkg", "pkg.g"),
            "(a, b)  [unverified: 'g' is made by calling make(...) at pkg/__init__.py:6, which the resolver "
            "cannot follow; this is the signature of its argument f]");
}

TEST_F(StaticExtractorTest, StaticUnverifiedUnresolvedRecordsWhatItCannotVouchForAsUnresolved) {
  write("pkg/__init__.py", "import somelib\n@somelib.memoize\ndef f(a): pass\ndef g(b): pass\n");
  StaticConfig strict;
  strict.unverified = "unresolved";
  StaticExtractor extractor{test::shared_python(), strict};
  auto states = extractor.extract(m_tree, {{"import pkg", "pkg.f"}, {"import pkg", "pkg.g"}});
  ASSERT_TRUE(states) << states.error().message();
  EXPECT_EQ((*states)[0].state.status, Status::unresolved);
  EXPECT_THAT((*states)[0].state.detail, HasSubstr("unverified: decorated with @somelib.memoize"));
  EXPECT_EQ((*states)[1].state.summary(), "(b)");
  EXPECT_THAT(resolve("import pkg", "pkg.f"), HasSubstr("(a)  [unverified: decorated with @somelib.memoize"));
}

// As inspect.signature(functools.partial(f, 1)): the first positional parameter is bound.
TEST_F(StaticExtractorTest, ResolvesAFunctoolsPartialOfARepositoryFunction) {
  write("pkg/__init__.py",
        "import functools\n\ndef f(a, b, c=3):\n    pass\n\ng = functools.partial(f, 1, c=4)\n");

  EXPECT_EQ(resolve("import pkg", "pkg.g"), "(b, *, c=4)");
}

// --- modules ------------------------------------------------------------------------------------

TEST_F(StaticExtractorTest, PrefersPackageOverModuleOfTheSameName) {
  write("pkg/__init__.py", "");
  write("pkg/m.py", "def f(module):\n    pass\n");
  write("pkg/m/__init__.py", "def f(package):\n    pass\n");

  EXPECT_EQ(resolve("from pkg.m import f", "f"), "(package)");
}

TEST_F(StaticExtractorTest, ResolvesModulesOfNamespacePackages) {
  write("ns/mod.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("import ns.mod", "ns.mod.f"), "(a)");
}

TEST_F(StaticExtractorTest, ReportsModuleTargetAsUnresolved) {
  write("pkg/__init__.py", "");
  write("pkg/m.py", "");

  EXPECT_EQ(resolve("import pkg.m", "pkg.m"), "unresolved: 'pkg.m' is a module, not a function");
}

// Python: `import pkg` does not load pkg.m, so pkg.m is an AttributeError.
TEST_F(StaticExtractorTest, ReportsASubmoduleNothingImportsAsMissing) {
  write("pkg/__init__.py", "");
  write("pkg/m.py", "def f(a):\n    pass\n");

  EXPECT_THAT(resolve("import pkg", "pkg.m.f"), StartsWith("missing: "));
  EXPECT_EQ(resolve("import pkg.m", "pkg.m.f"), "(a)");
}

// --- classes ------------------------------------------------------------------------------------

constexpr const char* k_class_source = R"(
class Op:
    def __init__(self, size, *, dtype=None):
        pass

    def run(self, x):
        pass

    @classmethod
    def create(cls, name):
        pass

    @staticmethod
    def helper(a, b=2):
        pass
)";

TEST_F(StaticExtractorTest, ResolvesPlainMethodKeepingSelf) {
  write("pkg/__init__.py", k_class_source);

  EXPECT_EQ(resolve("import pkg", "pkg.Op.run"), "(self, x)");
}

TEST_F(StaticExtractorTest, ResolvesClassMethodWithoutCls) {
  write("pkg/__init__.py", k_class_source);

  EXPECT_EQ(resolve("import pkg", "pkg.Op.create"), "(name)");
}

TEST_F(StaticExtractorTest, ResolvesStaticMethodAsIs) {
  write("pkg/__init__.py", k_class_source);

  EXPECT_EQ(resolve("import pkg", "pkg.Op.helper"), "(a, b=2)");
}

TEST_F(StaticExtractorTest, ResolvesClassTargetToInitWithoutSelf) {
  write("pkg/__init__.py", k_class_source);

  EXPECT_EQ(resolve("import pkg", "pkg.Op"), "(size, *, dtype=None)");
}

TEST_F(StaticExtractorTest, ReportsClassInheritingFromOutsideTheRepositoryAsUnresolved) {
  write("pkg/__init__.py", "import torch\n\nclass Op(torch.nn.Module):\n    def run(self):\n        pass\n");

  EXPECT_THAT(resolve("import pkg", "pkg.Op"), StartsWith("unresolved: class 'Op'"));
}

TEST_F(StaticExtractorTest, InheritsTheConstructorOfABaseInTheRepository) {
  write("pkg/__init__.py", "from .base import Base\n\nclass Op(Base):\n    def run(self):\n        pass\n");
  write("pkg/base.py", "class Base:\n    def __init__(self, size, *, dtype=None):\n        pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.Op"), "(size, *, dtype=None)");
}

// --- last binding wins; decorators --------------------------------------------------------------

TEST_F(StaticExtractorTest, LastBindingWinsAcrossIfElse) {
  write("pkg/__init__.py", R"(
import sys

if sys.platform == "win32":
    def f(windows):
        pass
else:
    def f(other):
        pass
)");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(other)");
}

TEST_F(StaticExtractorTest, LastBindingWinsAcrossTryExceptImportError) {
  write("pkg/__init__.py", R"(
try:
    from .fast import f
except ImportError:
    def f(fallback):
        pass
)");
  write("pkg/fast.py", "def f(fast):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(fallback)");
}

TEST_F(StaticExtractorTest, IgnoresDefinitionsUnderMainGuardAndTypeChecking) {
  write("pkg/__init__.py", R"(
from typing import TYPE_CHECKING

def f(real):
    pass

if TYPE_CHECKING:
    def f(typing_only):
        pass

if __name__ == "__main__":
    def f(script):
        pass
)");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(real)");
}

TEST_F(StaticExtractorTest, DecoratedCompileOpsStubKeepsItsSignature) {
  write("pkg/__init__.py", "from .ops import *\n");
  write("pkg/ops.py", R"(
from torch import Tensor

from .core import compile_ops


@compile_ops("module_moe_asm", fc_name="topk_softmax", develop=True)
def topk_softmax(
    topk_weights: Tensor,
    need_renorm: bool,
    num_shared_experts: int = 0,
) -> None: ...
)");
  write("pkg/core.py", "def compile_ops(name, fc_name=None, develop=False):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.topk_softmax"),
            "(topk_weights: Tensor, need_renorm: bool, num_shared_experts: int = 0) -> None");
}

// --- what cannot be resolved --------------------------------------------------------------------

TEST_F(StaticExtractorTest, CutsImportCycles) {
  write("pkg/__init__.py", "from .a import *\n");
  write("pkg/a.py", "from .b import *\nfrom . import *\n");
  write("pkg/b.py", "from .a import *\n\ndef f(a):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(a)");
  EXPECT_EQ(resolve("import pkg", "pkg.nowhere"), "missing: 'nowhere' not found in module 'pkg'");
}

TEST_F(StaticExtractorTest, ReportsNameMaybeSetBySetattrAsUnresolved) {
  write("pkg/__init__.py", "import sys\n\nsetattr(sys.modules[__name__], 'f', len)\n");

  EXPECT_THAT(resolve("import pkg", "pkg.f"), StartsWith("unresolved: 'f' is not defined statically"));
}

TEST_F(StaticExtractorTest, ReportsNameMaybeSetThroughGlobalsAsUnresolved) {
  write("pkg/__init__.py", "for name in ['f']:\n    pass\nglobals()['f'] = len\n");

  EXPECT_THAT(resolve("import pkg", "pkg.f"), HasSubstr("globals()"));
}

TEST_F(StaticExtractorTest, ReportsNameMaybeProvidedByModuleGetattrAsUnresolved) {
  write("pkg/__init__.py", "def __getattr__(name):\n    raise AttributeError(name)\n");

  EXPECT_THAT(resolve("import pkg", "pkg.f"), HasSubstr("__getattr__"));
}

TEST_F(StaticExtractorTest, ReportsTargetDefinedOutsideTheRepositoryAsUnresolved) {
  write("pkg/__init__.py", "from torch import Tensor\n");

  EXPECT_EQ(resolve("import pkg", "pkg.Tensor"), "unresolved: defined outside the repository: torch.Tensor");
}

TEST_F(StaticExtractorTest, ReportsSyntaxErrorWithPathAndLine) {
  write("pkg/__init__.py", "from .m import *\n");
  write("pkg/m.py", "import os\n\ndef f(:\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "syntax_error: pkg/m.py:3: invalid syntax");
}

// Bodies are blanked before parsing (python_skeleton), so this one must be found when it is checked.
TEST_F(StaticExtractorTest, ReportsASyntaxErrorInAnotherFunctionsBodyWithPathAndLine) {
  write("pkg/__init__.py", "from .m import *\n");
  write("pkg/m.py", "def f(a, b=1):\n    return a\n\ndef g():\n    x = [1,\n    return x)\n");

  EXPECT_EQ(
      resolve("import pkg", "pkg.f"),
      "syntax_error: pkg/m.py:6: closing parenthesis ')' does not match opening parenthesis '[' on line 5");
  write("pkg/m.py", "def f(a, b=1):\n    return a\n\ndef g():\n    x = [1,\n    ]\n    return x\n");
  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(a, b=1)");
}

// What a decorator's body says is read from its text when a decorated function asks (a skeleton
// blanks it): a decorator that replaces the function without functools.wraps is named in the detail.
TEST_F(StaticExtractorTest, ADecoratorsBodyIsReadThroughItsSkeleton) {
  write("pkg/__init__.py", "from .m import f, g\n");
  write("pkg/m.py",
        "import functools\n"
        "def plain(fn):\n"
        "    def inner(*args, **kwargs):\n"
        "        return fn(*args, **kwargs)\n"
        "    return inner\n"
        "def wrapping(fn):\n"
        "    @functools.wraps(fn)\n"
        "    def inner(*args, **kwargs):\n"
        "        return fn(*args, **kwargs)\n"
        "    return inner\n"
        "@plain\n"
        "def f(a, b=1):\n"
        "    return a\n"
        "@wrapping\n"
        "def g(a, b=1):\n"
        "    return a\n");

  auto states = extract({{"import pkg", "pkg.f"}, {"import pkg", "pkg.g"}});
  ASSERT_EQ(states.size(), 2u);
  EXPECT_THAT(states[0].state.unverified,
              HasSubstr("decorated with @plain (pkg/m.py:2), which returns a (*args, **kwargs) wrapper"));
  EXPECT_EQ(states[1].state.detail, "");
  EXPECT_EQ(states[1].state.unverified, "");
}

TEST_F(StaticExtractorTest, ReportsDeletedModuleAsMissing) {
  write("pkg/__init__.py", "");
  write("pkg/m.py", "def f(a):\n    pass\n");
  ASSERT_EQ(resolve("from pkg.m import f", "f"), "(a)");

  m_tree.remove("pkg/m.py");

  EXPECT_EQ(resolve("from pkg.m import f", "f"), "missing: module 'pkg.m' not found");
}

TEST_F(StaticExtractorTest, ReportsMissingNameAsMissing) {
  write("pkg/__init__.py", "def f(a):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.g"), "missing: 'g' not found in module 'pkg'");
}

// --- signature text -----------------------------------------------------------------------------

TEST_F(StaticExtractorTest, PrintsPositionalOnlyAndKeywordOnlySeparators) {
  write("pkg/__init__.py", "def f(a, /, b: int = 1, *, c, **kw) -> None:\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(a, /, b: int = 1, *, c, **kw) -> None");
}

TEST_F(StaticExtractorTest, PrintsNoStarSeparatorAfterVarArgs) {
  write("pkg/__init__.py", "def f(a, *args, b=2, **kwargs):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(a, *args, b=2, **kwargs)");
}

TEST_F(StaticExtractorTest, PrintsSlashAfterTrailingPositionalOnlyParameters) {
  write("pkg/__init__.py", "def f(a, b=1, /):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(a, b=1, /)");
}

TEST_F(StaticExtractorTest, ReportsParameterKindsDefaultsAndAnnotations) {
  write("pkg/__init__.py", "async def f(a, /, b: int = 1, *args: str, c, **kw) -> 'X':\n    pass\n");

  const Signature signature = extract_one("import pkg", "pkg.f").state.signature;

  const Signature expected{{{"a", ParameterKind::positional_only, std::nullopt, std::nullopt},
                            {"b", ParameterKind::positional_or_keyword, "1", "int"},
                            {"args", ParameterKind::var_positional, std::nullopt, "str"},
                            {"c", ParameterKind::keyword_only, std::nullopt, std::nullopt},
                            {"kw", ParameterKind::var_keyword, std::nullopt, std::nullopt}},
                           "'X'"};
  EXPECT_EQ(signature, expected);
}

TEST_F(StaticExtractorTest, NormalisesReformattedDefaultsAndAnnotations) {
  write("pkg/__init__.py", R"(
def f(
    x: Optional[Dict[str, Tuple[int, ...]]] = None,
    key=lambda x: x,
    shape=(1, 2),
    mapping={"a": 1},
    n=-1,
    eps=1e-6,
    t: "torch.Tensor" = None,
) -> "Optional[int]":
    pass
)");
  const std::string before = resolve("import pkg", "pkg.f");

  write("pkg/__init__.py", R"(
def f(x : Optional[ Dict[ str ,
                          Tuple[ int , ... ] ] ]=None, key = (lambda x : x), shape = ( 1 ,2 ),
      mapping = { 'a' : 1, }, n = - 1, eps = 1E-6, t : 'torch.Tensor' = (None)) -> (
        'Optional[int]'):
    pass
)");
  const std::string after = resolve("import pkg", "pkg.f");

  EXPECT_EQ(before,
            "(x: Optional[Dict[str, Tuple[int, ...]]] = None, key=lambda x: x, shape=(1, 2), "
            "mapping={'a': 1}, n=-1, eps=1e-06, t: 'torch.Tensor' = None) -> 'Optional[int]'");
  EXPECT_EQ(after, before);
}

// The helper sends parameters only; the one renderer of a signature's text is Signature::text.
TEST_F(StaticExtractorTest, HelperSendsParametersThatRenderAsPythonPrintsThem) {
  write("pkg/__init__.py", "def f(a, /, b: int = 1, *args, c=(1,), **kw) -> None:\n    pass\n");
  HostCallbacks callbacks;
  callbacks["find_blob"] = [this](const Json& args) -> Result<Json> {
    auto blob = m_tree.blob_of(args[0].get<std::string>());
    return blob ? Json(blob->hex) : Json(nullptr);
  };
  callbacks["is_directory"] = [this](const Json& args) -> Result<Json> {
    return Json(*m_tree.is_directory(args[0].get<std::string>()));
  };
  callbacks["read_blob"] = [this](const Json& args) -> Result<Json> {
    return Json(*m_tree.read_blob(ObjectId{args[0].get<std::string>()}));
  };
  const Json request = {{"functions", {{{"import_statement", "import pkg"}, {"function_path", "pkg.f"}}}}};

  auto raw = test::shared_python().call("aaw_static", "resolve_all", request, callbacks);

  ASSERT_TRUE(raw) << raw.error().message();
  const Json& state = (*raw)[0]["state"];
  EXPECT_FALSE(state.contains("text"));
  EXPECT_EQ(state_from_json(state)->signature.text(), "(a, /, b: int = 1, *args, c=(1,), **kw) -> None");
}

TEST_F(StaticExtractorTest, ReadsSourceWithCodingDeclaration) {
  write("pkg/__init__.py", "# -*- coding: latin-1 -*-\ndef f(a='\xe9'):\n    pass\n");

  EXPECT_EQ(resolve("import pkg", "pkg.f"), "(a='\xc3\xa9')");
}

// --- consulted paths, the cache, failures -------------------------------------------------------

TEST_F(StaticExtractorTest, ListsConsultedPathsIncludingAbsentProbes) {
  write("pkg/__init__.py", "");
  write("pkg/m.py", "def f(a):\n    pass\n");

  const Extraction extraction = extract_one("import pkg", "pkg.m.f");

  EXPECT_THAT(extraction.consulted,
              Contains(PathProbe{"pkg/__init__.py", m_tree.blob_of("pkg/__init__.py"), std::nullopt}));
  EXPECT_THAT(extraction.consulted, Contains(PathProbe{"pkg/m/__init__.py", std::nullopt, std::nullopt}));
  EXPECT_THAT(extraction.consulted,
              Contains(PathProbe{"pkg/m.py", m_tree.blob_of("pkg/m.py"), std::nullopt}));
}

TEST_F(StaticExtractorTest, ReadsUnchangedBlobsOnlyOnceAcrossExtractions) {
  write("pkg/__init__.py", "from .m import *\n");
  write("pkg/m.py", "def f(a):\n    pass\n");
  const std::vector<MonitoredFunction> functions = {{"import pkg", "pkg.f"}, {"from pkg.m import f", "f"}};

  extract(functions);
  extract(functions);

  EXPECT_EQ(m_tree.reads_of("pkg/__init__.py"), 1);
  EXPECT_EQ(m_tree.reads_of("pkg/m.py"), 1);
}

TEST_F(StaticExtractorTest, RereadsAChangedBlob) {
  write("pkg/__init__.py", "from .m import *\n");
  write("pkg/m.py", "def f(a):\n    pass\n");
  extract({{"import pkg", "pkg.f"}});

  write("pkg/m.py", "def f(a, b):\n    pass\n");
  const std::vector<Extraction> after = extract({{"import pkg", "pkg.f"}});

  EXPECT_EQ(after.at(0).state.summary(), "(a, b)");
  EXPECT_EQ(m_tree.reads_of("pkg/m.py"), 1);
  EXPECT_EQ(m_tree.reads_of("pkg/__init__.py"), 1);
  EXPECT_EQ(m_tree.total_reads(), 3);
}

TEST_F(StaticExtractorTest, ReadFailureFailsOnlyThatFunction) {
  write("pkg/__init__.py", "");
  write("pkg/bad.py", "def f(a):\n    pass\n");
  write("pkg/good.py", "def g(b):\n    pass\n");
  m_tree.fail_read("pkg/bad.py");

  const std::vector<Extraction> extractions =
      extract({{"from pkg.bad import f", "f"}, {"from pkg.good import g", "g"}});

  ASSERT_EQ(extractions.size(), 2U);
  EXPECT_EQ(extractions[0].state.status, Status::extract_failed);
  EXPECT_THAT(extractions[0].state.detail, HasSubstr("pkg/bad.py"));
  EXPECT_THAT(extractions[0].state.detail, HasSubstr("is missing"));
  EXPECT_EQ(extractions[1].state.summary(), "(b)");
}

TEST_F(StaticExtractorTest, LookupFailureFailsOnlyThatFunction) {
  write("pkg/__init__.py", "");
  write("pkg/good.py", "def g(b):\n    pass\n");
  write("broken/f.py", "def f():\n    pass\n");  // the package is there; its __init__ cannot be read
  m_tree.fail_lookup("broken/__init__.py");

  const std::vector<Extraction> extractions =
      extract({{"import broken", "broken.f"}, {"from pkg.good import g", "g"}});

  ASSERT_EQ(extractions.size(), 2U);
  EXPECT_EQ(extractions[0].state.status, Status::extract_failed);
  EXPECT_EQ(extractions[1].state.summary(), "(b)");
}

// --- code nested past what resolution follows -------------------------------------------------------

TEST_F(StaticExtractorTest, DefaultNestedPastTheRecursionLimitFailsOnlyItsFunction) {
  std::string sum = "1";
  for (int i = 0; i < 1000; ++i) sum += "+1";
  write("pkg/__init__.py", "from .deep import *\nfrom .plain import *\n");
  write("pkg/deep.py", "def deep(x=" + sum + "):\n    pass\n");
  write("pkg/plain.py", "def plain(y=1):\n    pass\n");
  auto states = extract({{"import pkg", "pkg.deep"}, {"import pkg", "pkg.plain"}});
  ASSERT_EQ(states.size(), 2u);
  EXPECT_EQ(states[1].state.summary(), "(y=1)");
  EXPECT_EQ(states[0].state.status, Status::unresolved);
  EXPECT_THAT(states[0].state.detail, HasSubstr("nested too deeply"));
}

TEST_F(StaticExtractorTest, StarImportChainPastTheLimitIsUnresolvedNamingIt) {
  write("pkg/__init__.py", "from .m0 import *\n");
  for (int i = 0; i < 1000; ++i)
    write("pkg/m" + std::to_string(i) + ".py", "from .m" + std::to_string(i + 1) + " import *\n");
  write("pkg/m1000.py", "def f(a):\n    pass\n");
  write("pkg/other.py", "def g(b):\n    pass\n");
  auto states = extract({{"import pkg", "pkg.f"}, {"from pkg.other import g", "g"}});
  ASSERT_EQ(states.size(), 2u);
  EXPECT_EQ(states[1].state.summary(), "(b)");
  EXPECT_EQ(states[0].state.status, Status::unresolved) << states[0].state.summary();
  EXPECT_THAT(states[0].state.detail, HasSubstr("chain of more than 100"));
}

}  // namespace
}  // namespace aaw

namespace aaw {
namespace {

// --- looking functions up (aaw_lookup.py) -------------------------------------------------------

TEST_F(StaticExtractorTest, LookupSaysWhetherEachFunctionIsThereAndWhatIsNear) {
  write("aiter/__init__.py", "from .ops import *\n");
  write("aiter/ops.py", "def fmoe(a): pass\ndef fmoe_int8(a): pass\n");
  write("aiter/dyn.py", "globals()['g'] = 1\n");
  auto lookups = m_extractor.lookup(
      m_tree,
      {{"import aiter", "aiter.fmoe"}, {"import aiter", "aiter.fmoee"}, {"import aiter.dyn as d", "d.g"}});
  ASSERT_TRUE(lookups) << lookups.error().message();
  ASSERT_EQ(lookups->size(), 3u);
  EXPECT_EQ((*lookups)[0].verdict, FunctionLookup::Verdict::found);
  EXPECT_EQ((*lookups)[1].verdict, FunctionLookup::Verdict::not_found);
  EXPECT_EQ((*lookups)[1].name, "fmoee");
  EXPECT_EQ((*lookups)[1].suggestions(), (std::vector<std::string>{"fmoe"}));
  EXPECT_THAT((*lookups)[1].detail, HasSubstr("'fmoee' not found in module 'aiter'"));
  EXPECT_EQ((*lookups)[2].verdict, FunctionLookup::Verdict::unknown);
}

TEST(ModuleOutlineTest, AnswersNamesTheModuleDoesNotBindAsThemselvesOrAsTheirIdentity) {
  auto outline = ModuleOutline::from_json(Json{{"unbound", "U"}, {"bound", {"deco", "f"}}});
  ASSERT_TRUE(outline) << outline.error().message();
  using Names = std::vector<std::string>;
  EXPECT_EQ(outline->digest(Names{"x"}), "U");
  EXPECT_EQ(outline->digest(Names{"<identity>x", "y"}), "U") << "an identity of an unbound name reads as it";
  EXPECT_EQ(outline->digest(Names{"<identity>deco"}), std::nullopt) << "a bound one is asked of Python";
  EXPECT_EQ(outline->digest(Names{"f"}), std::nullopt);
  EXPECT_EQ(outline->digest(Names{"<body>x"}), std::nullopt) << "other pseudo-names too";
  EXPECT_EQ(outline->digest(Names{"<identity><body>x"}), std::nullopt);
  EXPECT_EQ(outline->digest(Names{}), std::nullopt);
  EXPECT_EQ(bare_name("<identity>deco"), "deco");
  EXPECT_EQ(bare_name("deco"), "deco");
}

}  // namespace
}  // namespace aaw
