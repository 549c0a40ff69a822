// canonical_annotation as a table: the spellings that mean the same type meet, the others do not.
#include "core/model/annotation.hpp"

#include <gtest/gtest.h>

#include "core/model/diff.hpp"

namespace aaw {
namespace {

struct Pair {
  const char* a;
  const char* b;
};

TEST(AnnotationTest, SpellingsOfTheSameTypeAreTheSame) {
  const Pair same[] = {
      {"Optional[torch.Tensor]", "torch.Tensor | None"},
      {"Optional[torch.Tensor]", "None | torch.Tensor"},
      {"Union[torch.Tensor, None]", "torch.Tensor | None"},
      {"typing.Optional[int]", "int | None"},
      {"Union[int, str]", "str | int"},
      {"Union[int, Union[str, None]]", "int | str | None"},
      {"Optional[Union[int, str]]", "int | str | None"},
      {"List[int]", "list[int]"},
      {"Dict[str, List[int]]", "dict[str, list[int]]"},
      {"Tuple[int, ...]", "tuple[int, ...]"},
      {"typing.List[int]", "list[int]"},
      {"Type[Foo]", "type[Foo]"},
      {"Set[int]", "set[int]"},
      {"FrozenSet[int]", "frozenset[int]"},
      {"'torch.Tensor'", "torch.Tensor"},
      {"Optional['Config']", "Config | None"},
      {"Callable[[int, str], None]", "Callable[[int, str], None]"},
      {"Optional[Callable[..., Any]]", "Callable[..., Any] | None"},
      {"Literal['a', 'b']", "Literal[\"a\", \"b\"]"},
      {"int | int", "int"},
      // typing under an alias (`import typing as t`), as click and tenacity write it
      {"t.Optional[t.Any]", "t.Any | None"},
      {"t.List[str]", "list[str]"},
      {"t.Tuple[t.Optional[str], t.Optional[Command]]", "tuple[str | None, Command | None]"},
      {"t.Union[int, str]", "str | int"},
  };
  for (const Pair& p : same) {
    EXPECT_EQ(canonical_annotation(p.a), canonical_annotation(p.b)) << p.a << " vs " << p.b;
    EXPECT_TRUE(same_annotation(std::string(p.a), std::string(p.b))) << p.a << " vs " << p.b;
  }
}

TEST(AnnotationTest, DifferentTypesStayDifferent) {
  const Pair different[] = {
      {"Optional[int]", "int"},
      {"List[int]", "list[str]"},
      {"Tuple[int, str]", "tuple[str, int]"},  // a tuple's order matters, a union's does not
      {"Literal['a', 'b']", "Literal['a']"},
      {"Literal['int']", "Literal[int]"},  // a value, not a forward reference
      {"torch.Tensor", "Tensor"},          // two names that may not be one object
      {"Callable[[int], None]", "Callable[[str], None]"},
      {"Dict[str, int]", "dict[int, str]"},
      {"t.Any", "Any"},                // a bare name under an alias stays itself
      {"a.b.List[int]", "list[int]"},  // only a one-name prefix is read as typing's alias
  };
  for (const Pair& p : different)
    EXPECT_FALSE(same_annotation(std::string(p.a), std::string(p.b))) << p.a << " vs " << p.b;
  EXPECT_FALSE(same_annotation(std::string("int"), std::nullopt));
  EXPECT_TRUE(same_annotation(std::nullopt, std::nullopt));
}

TEST(AnnotationTest, TextItCannotReadComparesVerbatim) {
  EXPECT_EQ(canonical_annotation("Foo[int].Bar"), "Foo[int].Bar");
  EXPECT_EQ(canonical_annotation("Tuple[()]"), "Tuple[()]");
  EXPECT_EQ(canonical_annotation("'unterminated"), "'unterminated");
  EXPECT_EQ(canonical_annotation("Optional[torch.Tensor]"), "None | torch.Tensor");
}

TEST(AnnotationTest, TheDiffReportsNoChangeForAnEquivalentRewriteAndOneForARealChange) {
  auto signature = [](const char* annotation, const char* returns) {
    Signature s;
    s.parameters.push_back(
        {"x", ParameterKind::positional_or_keyword, std::nullopt, std::string(annotation)});
    s.return_annotation = std::string(returns);
    return SignatureState::ok(s);
  };
  EXPECT_TRUE(diff_states(signature("Optional[torch.Tensor]", "List[int]"),
                          signature("torch.Tensor | None", "list[int]"))
                  .empty());
  auto changes = diff_states(signature("Optional[torch.Tensor]", "int"), signature("torch.Tensor", "int"));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, ChangeKind::annotation_changed);
  EXPECT_EQ(changes[0].severity, Severity::annotation);
}

}  // namespace
}  // namespace aaw
