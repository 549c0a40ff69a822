"""scripts/check_docs.py on small trees: what it lets through and what it refuses, and the real docs."""

import contextlib
import json
import importlib.util
import io
import pathlib
import unittest

from file_tree import file_tree

_ROOT = pathlib.Path(__file__).resolve().parents[2]
_SCRIPT = _ROOT / "scripts" / "check_docs.py"
_spec = importlib.util.spec_from_file_location("check_docs", _SCRIPT)
check_docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_docs)

_GOOD = {
    "README.md": "# Tool\n\nSee [the modes](docs/modes.md#the-first-start) and [design](docs/design.md).\n"
                 "Code: [src](src/main.cpp), [a folder](src/), [up](#tool), "
                 "[web](https://example.com/guide.md#x).\n"
                 "```\n[not a link](nowhere.md)\n```\n"
                 "Inline `[not a link](nowhere.md)` either.\n",
    "src/main.cpp": "int main() {}\n",
    "docs/README.md": "# Docs\n\n- [modes](modes.md)\n- [design](design.md)\n- [back](../README.md)\n",
    "docs/modes.md": "# Modes\n\n## The first start\n\n## `watch --once`: exit\n\n## The first start\n\n"
                     "Links: [once](#watch---once-exit), [again](#the-first-start-1), "
                     "[the contract](design.md#the-contract-cli-config), docs/design.md, design.md.\n",
    "docs/design.md": "# Design\n\n## The contract: CLI, config\n",
}


class CheckDocsTest(unittest.TestCase):
    def tree(self, files):
        return file_tree(self, files)

    def problems(self, changes=None, removed=()):
        files = {**_GOOD, **(changes or {})}
        for path in removed:
            del files[path]
        return check_docs.problems(self.tree(files))

    def run_main(self, root):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = check_docs.main(["check_docs.py", str(root)])
        return code, out.getvalue()

    def test_a_tree_that_keeps_every_rule_passes(self):
        self.assertEqual(self.problems(), [])
        code, out = self.run_main(self.tree(_GOOD))
        self.assertEqual((code, out), (0, ""))

    def test_a_readme_over_300_lines_is_refused(self):
        readme = _GOOD["README.md"] + "line\n" * 300
        found = self.problems({"README.md": readme})
        self.assertEqual(len(found), 1, found)
        self.assertTrue(found[0].startswith("README.md:301: "), found)
        self.assertIn("at most 300", found[0])
        self.assertEqual(self.problems({"README.md": "x\n" * 300}), [])

    def test_a_link_to_a_missing_file_is_named_with_its_line(self):
        found = self.problems({"docs/modes.md": _GOOD["docs/modes.md"] + "\n[gone](gone.md)\n"})
        self.assertEqual(found, ["docs/modes.md:11: link 'gone.md': docs/gone.md does not exist"])

    def test_a_link_outside_the_repository_is_refused(self):
        found = self.problems({"README.md": _GOOD["README.md"] + "[out](../elsewhere/x.md)\n"})
        self.assertEqual(len(found), 1, found)
        self.assertIn("README.md:9: link '../elsewhere/x.md' leads outside the repository", found)

    def test_an_anchor_that_names_no_heading_is_refused(self):
        found = self.problems({"README.md": "# Tool\n\n[a](docs/modes.md#the-second-start)\n[b](#nope)\n"
                                            "[design](docs/design.md)\n"})
        self.assertEqual(found, [
            "README.md:3: link 'docs/modes.md#the-second-start': no heading '#the-second-start' in docs/modes.md",
            "README.md:4: link '#nope': no heading '#nope' in README.md",
        ])

    def test_slugs_follow_github(self):
        self.assertEqual(check_docs.slug("Consumer impact: `discover` and `check`"),
                         "consumer-impact-discover-and-check")
        self.assertEqual(check_docs.slug("What is a change, and how bad is it"),
                         "what-is-a-change-and-how-bad-is-it")
        self.assertEqual(check_docs.slug("`bench/watch.sh [COMMITS]`: long"), "benchwatchsh-commits-long")
        self.assertEqual(check_docs.slug("C++ ↔ Python"), "c--python")
        self.assertEqual(check_docs.slug("See [the docs](x.md)"), "see-the-docs")
        anchors = check_docs.anchors("# A\n## A\n```\n# not a heading\n```\nB\n---\n<a name=\"here\"></a>\n")
        self.assertEqual(anchors, {"a", "a-1", "b", "here"})

    def test_a_mention_of_shared_is_refused_even_in_code(self):
        found = self.problems({"docs/modes.md": _GOOD["docs/modes.md"] + "```\ncat ../shared/x\n```\n"})
        self.assertEqual(len(found), 1, found)
        self.assertTrue(found[0].startswith("docs/modes.md:11: mentions '../shared'"), found)

    def test_a_design_md_other_than_docs_design_md_is_refused(self):
        found = self.problems({"README.md": _GOOD["README.md"] + "Read DESIGN.md and design.md.\n"})
        self.assertEqual(found, [
            "README.md:9: mentions 'DESIGN.md'; the design is docs/design.md",
            "README.md:9: mentions 'design.md'; the design is docs/design.md",
        ])
        found = self.problems({"docs/modes.md": _GOOD["docs/modes.md"] + "See ../../notes/DESIGN.md\n"
                                                                        "or https://example.com/DESIGN.md\n"})
        self.assertEqual(found, ["docs/modes.md:10: mentions '../../notes/DESIGN.md'; the design is docs/design.md",
                                 "docs/modes.md:11: mentions 'https://example.com/DESIGN.md'; the design is docs/design.md"])

    def test_a_doc_missing_from_the_index_is_named(self):
        found = self.problems({"docs/extra.md": "# Extra\n"})
        self.assertEqual(found, ["docs/README.md:1: docs/extra.md is not linked from docs/README.md"])

    def test_a_missing_index_is_named(self):
        found = self.problems({"README.md": "# Tool\n\n[design](docs/design.md)\n"}, removed=["docs/README.md"])
        self.assertEqual(found, ["docs/README.md:1: missing: it must link every doc in docs/"])

    def test_main_prints_each_problem_and_exits_1(self):
        root = self.tree({**_GOOD, "docs/extra.md": "[x](y.md)\n"})
        code, out = self.run_main(root)
        self.assertEqual(code, 1)
        self.assertEqual(out.splitlines(), [
            "docs/extra.md:1: link 'y.md': docs/y.md does not exist",
            "docs/README.md:1: docs/extra.md is not linked from docs/README.md",
        ])

    def test_the_config_reference_and_the_schema_name_the_same_keys(self):
        schema = json.dumps({"properties": {
            "repository_url": {"type": "string"},
            "static": {"type": "object", "properties": {"cache_mb": {}, "parse_ahead": {}}},
            "notify": {"type": "object", "properties": {
                "webhook": {"$ref": "#/definitions/channel"}, "github_issue": {"$ref": "#/definitions/channel"}}}},
            "definitions": {"channel": {"type": "object", "properties": {"url": {}, "only_if_consumer_breaks": {}}}}})
        reference = ("# Configuration\n\n| key | meaning |\n|---|---|\n| `repository_url` | where |\n"
                     "| `static.cache_mb`, `.parse_ahead` | sizes |\n| `notify.webhook.url` | a URL |\n"
                     "| `notify.github_issue.url` | a URL |\n| `notify.*.only_if_consumer_breaks` | only then |\n")
        docs_index = _GOOD["docs/README.md"] + "- [configuration](configuration.md)\n"
        good = {"schemas/config.schema.json": schema, "docs/configuration.md": reference, "docs/README.md": docs_index}
        self.assertEqual(self.problems(good), [])
        missing = self.problems({**good, "docs/configuration.md": reference.replace(", `.parse_ahead`", "")})
        self.assertEqual(missing, ["docs/configuration.md:1: `static.parse_ahead` (schemas/config.schema.json) "
                                   "has no row in the reference"])
        unknown = self.problems({**good, "docs/configuration.md": reference + "| `static.cache_gb` | typo |\n"})
        self.assertEqual(unknown, ["docs/configuration.md:10: `static.cache_gb` is not a key of "
                                   "schemas/config.schema.json"])

    def test_the_repository_docs_pass(self):
        self.assertEqual(check_docs.problems(_ROOT), [])


if __name__ == "__main__":
    unittest.main()
