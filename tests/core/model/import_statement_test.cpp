#include "core/model/import_statement.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace aaw {
namespace {

std::vector<std::string> bound_by(const std::string& statement) {
  auto read = read_import_statement(statement);
  EXPECT_TRUE(read) << statement << ": " << (read ? "" : read.error().message());
  return read ? read->bound : std::vector<std::string>{};
}

std::string error_of(const std::string& statement) {
  auto read = read_import_statement(statement);
  EXPECT_FALSE(read) << statement << " was read";
  if (read) return "";
  EXPECT_EQ(read.error().code(), ErrorCode::invalid_input);
  return read.error().message();
}

using Names = std::vector<std::string>;

TEST(ImportStatementTest, ReadsWhatEachFormBinds) {
  EXPECT_EQ(bound_by("import aiter"), Names({"aiter"}));
  EXPECT_EQ(bound_by("import aiter.ops.shuffle"), Names({"aiter"})) << "binds the top-level package";
  EXPECT_EQ(bound_by("import aiter.fused_moe_bf16_asm as rocm_aiter_asm_fmoe"),
            Names({"rocm_aiter_asm_fmoe"}));
  EXPECT_EQ(bound_by("import os, aiter.ops as ops"), Names({"os", "ops"}));
  EXPECT_EQ(bound_by("from aiter.ops.shuffle import shuffle_weight"), Names({"shuffle_weight"}));
  EXPECT_EQ(bound_by("from aiter import a as b, c"), Names({"b", "c"}));
  EXPECT_EQ(bound_by("from aiter import (a,\n    b as c,\n)"), Names({"a", "c"})) << "brackets span lines";
  EXPECT_EQ(bound_by("  from   aiter   import   a  "), Names({"a"})) << "spaces around anything";
  EXPECT_EQ(bound_by("import aiter  # the package"), Names({"aiter"})) << "a comment after it";
  EXPECT_EQ(bound_by("from aiter \\\nimport a"), Names({"a"})) << "a backslash joins lines";
  EXPECT_EQ(bound_by("import aiter\n"), Names({"aiter"})) << "a line end after it";
  EXPECT_EQ(bound_by("import match"), Names({"match"})) << "soft keywords are names";
  EXPECT_EQ(bound_by("import café"), Names({"café"}));
}

TEST(ImportStatementTest, AStarImportBindsAnyName) {
  auto read = read_import_statement("from aiter import *");
  ASSERT_TRUE(read);
  EXPECT_TRUE(read->star);
  EXPECT_TRUE(binds(*read, "mla_reduce_v1"));
  auto plain = read_import_statement("import aiter.ops");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(binds(*plain, "aiter"));
  EXPECT_FALSE(binds(*plain, "ops"));
}

TEST(ImportStatementTest, DottedNames) {
  for (const char* good : {"aiter", "aiter.ops.shuffle", "_p.f2", "módulo.función"})
    EXPECT_TRUE(is_dotted_name(good)) << good;
  for (const char* bad : {"", "ai ter", " aiter", "aiter.", ".aiter", "a..b", "1x.f", "a/b", "f()"})
    EXPECT_FALSE(is_dotted_name(bad)) << bad;
}

TEST(ImportStatementTest, SaysWhatIsWrongWithAStatementPythonWouldRefuse) {
  EXPECT_EQ(error_of("import aiter,"), "a name was expected after ',', not the end");
  EXPECT_EQ(error_of("from aiter import"), "a name was expected after 'import', not the end");
  EXPECT_EQ(error_of("from aiter import a,"), "a name was expected after ',', not the end")
      << "a trailing comma only in brackets";
  EXPECT_EQ(error_of("from aiter import (a"), "')' was expected, not the end");
  EXPECT_EQ(error_of("from aiter import ()"), "a name was expected after '(', not ')'");
  EXPECT_EQ(error_of("import aiter."), "a name was expected after '.', not the end");
  EXPECT_EQ(error_of("import aiter as"), "a name was expected after 'as', not the end");
  EXPECT_EQ(error_of("import aiter as class"), "'class' is a Python keyword, not a name");
  EXPECT_EQ(error_of("from aiter import a b"), "unexpected 'b' after the statement");
  EXPECT_EQ(error_of("from aiter impot a"), "'import' was expected after the module name, not 'impot'");
  for (const char* two : {"import aiter; import os", "import aiter\nimport os"})
    EXPECT_EQ(
        error_of(two),
        "it holds more than one statement: watch one import per function (only brackets may span lines)");
  EXPECT_EQ(error_of("from aiter import a,\n b"), "a name was expected after ',', not a line break");
  EXPECT_EQ(error_of("x = 1"), "it must start with 'import' or 'from', not 'x'");
  EXPECT_EQ(
      error_of("from .aiter import x"),
      "a relative import has no package to resolve against: name the module from its top-level package");
  EXPECT_EQ(error_of("from aiter import *, a"), "unexpected ',' after the statement");
  EXPECT_EQ(error_of("import 1x"), "a name was expected after 'import', not '1'");
}

}  // namespace
}  // namespace aaw
