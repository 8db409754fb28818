"""Native tests of logic.py: `python3 -m unittest` (no wasm, no componentize-py)."""

import unittest

import logic


class Tests(unittest.TestCase):
    def test_counts_lines(self):
        self.assertEqual(logic.count_lines(""), 0)
        self.assertEqual(logic.count_lines("a\nb\n"), 2)
        self.assertEqual(logic.count_lines("a\nb"), 2)

    def test_paths_stay_in_the_workspace_and_out_of_the_deny_globs(self):
        root, deny = logic.workspace({"roots": "/ws\n/other", "deny": "secret/*"})
        self.assertEqual(logic.resolve(root, deny, "./src/a.txt"), ("/ws/src/a.txt", "src/a.txt"))
        for path, why in [("/etc/passwd", "absolute"), ("../x", "`..`"), ("keys/id.PEM", "deny globs"), ("secret/a", "deny globs")]:
            with self.assertRaisesRegex(ValueError, why):
                logic.resolve(root, deny, path)
        with self.assertRaisesRegex(ValueError, "no workspace roots"):
            logic.workspace({})

    def test_deny_globs_read_as_in_the_rust_sdk(self):
        deny = ["**/secret*", "src/**/*.pem", "*.env"]
        for path, denied in [
            ("secret.md", True),
            ("deep/er/secret.md", True),
            ("docs/secretary/x.txt", False),
            ("src/key.pem", True),
            ("src/a/b/key.PEM", True),
            ("lib/key.pem", False),
            ("a.env", True),
            ("conf/b.env", True),
            ("notes.txt", False),
            ("sub/.git/config", True),
        ]:
            self.assertEqual(logic.denied(deny, path), denied, path)


if __name__ == "__main__":
    unittest.main()
