"""Native tests of logic.py: `python3 -m unittest` (no wasm, no componentize-py)."""

import json
import os
import tempfile
import unittest

import logic

NOTEBOOK = json.dumps(
    {
        "cells": [
            {"cell_type": "markdown", "source": ["# Sales\n", "By month."]},
            {
                "cell_type": "code",
                "source": "total = sum(rows)\nprint(total)\n",
                "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n", "2\n", "3\n"]}],
            },
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
)


class Tests(unittest.TestCase):
    def test_a_notebook_is_shown_as_its_cells(self):
        self.assertEqual(
            logic.render_notebook(NOTEBOOK, logic.Options({})),
            "# [1] markdown\n# Sales\nBy month.\n\n# [2] code\ntotal = sum(rows)\nprint(total)\n",
        )

    def test_outputs_on_request_and_capped(self):
        text = logic.render_notebook(NOTEBOOK, logic.Options({"outputs": "true", "output_lines": "2"}))
        self.assertIn("print(total)\n# output\n1\n2\n# ... 1 more output lines\n", text)

    def test_what_is_not_a_notebook_is_served_as_it_is(self):
        for text in ["{not json", "[1, 2]", '{"cells": 3}']:
            self.assertEqual(logic.render_notebook(text, logic.Options({})), text)

    def test_options_are_checked(self):
        with self.assertRaisesRegex(ValueError, "outputs"):
            logic.Options({"outputs": "yes"})
        with self.assertRaisesRegex(ValueError, "output_lines"):
            logic.Options({"output_lines": "-1"})

    def test_files_are_read_listed_and_kept_in_the_workspace(self):
        with tempfile.TemporaryDirectory() as root:
            os.mkdir(os.path.join(root, "sub"))
            with open(os.path.join(root, "a.txt"), "w") as file:
                file.write("one\n")
            with open(os.path.join(root, "n.ipynb"), "w") as file:
                file.write(NOTEBOOK)
            options = logic.Options({})
            self.assertEqual(logic.read(root, "a.txt", options), "one\n")
            self.assertTrue(logic.read(root, "n.ipynb", options).startswith("# [1] markdown\n"))
            self.assertEqual(logic.listing(root, "", 10), (["a.txt", "n.ipynb", "sub/"], False))
            for path, kind in [("../x", "out-of-scope"), ("missing.txt", "not-found")]:
                with self.assertRaises(logic.Refused) as caught:
                    logic.read(root, path, options)
                self.assertEqual(caught.exception.kind, kind)


if __name__ == "__main__":
    unittest.main()
