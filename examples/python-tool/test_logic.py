"""Native tests of logic.py: `python3 -m unittest` (no wasm, no componentize-py)."""

import os
import tempfile
import unittest

import logic


class Tests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        root = self.dir.name
        for path, text in {
            "src/main.py": "x = 1  # TODO: name it\nprint(x)\n# FIXME later\n",
            "src/deep/util.py": "# XXX: slow\n# TODOS are not markers\n",
            "secrets/keys.txt": "TODO: rotate\n",
            ".git/HEAD": "TODO\n",
            "blob.bin": "TODO",
        }.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as file:
                file.write(text)
        with open(os.path.join(root, "blob.bin"), "wb") as file:
            file.write(b"\xff\xfeTODO")

    def tearDown(self):
        self.dir.cleanup()

    def settings(self, **config):
        return logic.Settings({"roots": self.dir.name, **config})

    def test_marked_lines_a_directorys_files_first_skipping_denied_and_binary_files(self):
        settings = self.settings(deny="secrets/**")
        found, more = logic.find(settings, ".")
        self.assertEqual(
            found,
            ["src/main.py:1: x = 1  # TODO: name it", "src/main.py:3: # FIXME later", "src/deep/util.py:1: # XXX: slow"],
        )
        self.assertFalse(more)

    def test_a_directory_a_limit_and_other_markers(self):
        settings = self.settings(markers="FIXME", max_results="1")
        found, more = logic.find(settings, "src")
        self.assertEqual(found, ["src/main.py:3: # FIXME later"])
        self.assertFalse(more)
        settings = self.settings(max_results="1")
        found, more = logic.find(settings, "src/")
        self.assertEqual(len(found), 1)
        self.assertTrue(more)
        self.assertIn("stopped at max_results = 1", logic.answer(settings, "src", found, more))

    def test_paths_stay_in_the_workspace(self):
        settings = self.settings(deny="secrets")
        for path, why in [("/etc", "absolute"), ("../x", "`..`"), ("secrets", "deny globs"), ("nope", "not a directory")]:
            with self.assertRaisesRegex(ValueError, why):
                logic.find(settings, path)

    def test_config_is_checked(self):
        with self.assertRaisesRegex(ValueError, "fs = "):
            logic.Settings({})
        with self.assertRaisesRegex(ValueError, "max_results"):
            self.settings(max_results="0")
        self.assertEqual(logic.answer(self.settings(), "", [], False), "no TODO, FIXME, XXX in the workspace")


if __name__ == "__main__":
    unittest.main()
