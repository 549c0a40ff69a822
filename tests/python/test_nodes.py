"""aaw_nodes: what a def's body says, read with the walks its text hints keep to a few lines."""

import ast
import dataclasses
import functools
import inspect
import unittest
import unittest.mock

import aaw_nodes


def facts_both_ways(text, node):
    """body_facts of `node` with the hints of `text` (lines) and with none (walk everything)."""
    return aaw_nodes.body_facts(node, aaw_nodes.text_hints(text)), aaw_nodes.body_facts(node, (True, True))


class TextHintsTest(unittest.TestCase):
    def test_hints_are_the_lines_naming_the_words(self):
        text = "x = 1\nself.__wrapped__ = f\nframe.f_locals['a'] = 2\nreturn wraps\n"
        self.assertEqual(aaw_nodes.text_hints(text), (frozenset({3}), frozenset({2, 4})))
        self.assertEqual(aaw_nodes.text_hints(text, 10), (frozenset({12}), frozenset({11, 13})))

    def test_a_text_naming_nothing_needs_no_walk(self):
        self.assertEqual(aaw_nodes.text_hints("return f(x)\n"), (False, False))

    def test_a_text_outside_ascii_is_read_as_the_parser_reads_identifiers(self):
        # "ｗｒａｐｓ" is the identifier wraps to the parser (NFKC); a comment in another script is
        # no reason to walk every line.
        self.assertEqual(aaw_nodes.text_hints("# 注释\nx = 1\nｗｒａｐｓ(f)\n"), (False, frozenset({3})))
        self.assertEqual(aaw_nodes.text_hints("# 注释\nreturn x\n"), (False, False))
        node = ast.parse("def f(g):\n    # 注释\n    @ｗｒａｐｓ(g)\n    def h(): pass\n    return h\n").body[0]
        text = "def f(g):\n    # 注释\n    @ｗｒａｐｓ(g)\n    def h(): pass\n    return h\n"
        self.assertTrue(aaw_nodes.body_facts(node, aaw_nodes.text_hints(text))[3])

    def test_a_text_with_bare_carriage_returns_may_name_them_anywhere(self):
        self.assertEqual(aaw_nodes.text_hints("a = 1\rself.__wrapped__ = f\n"), (False, True))


class LineWalkTest(unittest.TestCase):
    def check(self, text, expected_signature):
        node = ast.parse(text).body[0]
        with_lines, walking_all = facts_both_ways(text, node)
        self.assertEqual(with_lines, walking_all)
        self.assertEqual(with_lines[3], expected_signature)

    def test_a_decorator_above_its_def_is_on_the_defs_lines(self):
        # functools.wraps sits on a line above the nested def's own: the walk must reach it.
        self.check("def deco(f):\n    x = 1\n\n    @functools.wraps(\n        f)\n    def inner(*a):\n"
                   "        return f(*a)\n    return inner\n", True)

    def test_a_word_in_a_string_spanning_lines(self):
        self.check('def f(self):\n    name = """\n    __signature__\n    """\n    return name\n', False)
        self.check('def f(self):\n    return getattr(self, """\n__signature__""")\n', False)
        self.check("def f(self):\n    return '__signature__'\n", True)

    def test_an_attribute_written_across_lines_and_in_an_f_string(self):
        self.check("def f(self, g):\n    (self\n     .__wrapped__) = g\n", True)
        self.check("def f(self, g):\n    return f'{self.__wrapped__!r}'\n", True)

    def test_words_only_in_comments_say_nothing(self):
        self.check("def f(self):\n    # self.__wrapped__ = g\n    return 1\n", False)

    def test_frames_on_their_lines(self):
        node = ast.parse("def f():\n    x = 1\n    sys._getframe(1).f_locals['y'] = x\n").body[0]
        facts = aaw_nodes.body_facts(node, aaw_nodes.text_hints(
            "def f():\n    x = 1\n    sys._getframe(1).f_locals['y'] = x\n"))
        self.assertTrue(facts[2])

    def test_every_def_of_real_modules_reads_the_same_as_walking_all_of_it(self):
        # The standard library's functools, inspect, dataclasses and mock: decorators, wrappers, __wrapped__,
        # __signature__, setattr and frames all over, written by people who did not write this.
        compared = 0
        for module in (functools, inspect, dataclasses, unittest.mock):
            text = inspect.getsource(module)
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    with_lines, walking_all = facts_both_ways(text, node)
                    self.assertEqual(with_lines, walking_all, "%s.%s line %d" % (module.__name__, node.name,
                                                                                node.lineno))
                    compared += 1
        self.assertGreater(compared, 300)


if __name__ == "__main__":
    unittest.main()
