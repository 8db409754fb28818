"""Native tests of logic.py: `python3 -m unittest` (no wasm, no componentize-py)."""

import os
import tempfile
import unittest

import logic


class Tests(unittest.TestCase):
    def test_paths_out_of_the_workspace_are_refused_and_text_is_capped(self):
        for path in ["../etc/passwd", "/etc/passwd"]:
            with self.assertRaises(logic.Refused) as caught:
                logic.locate("/ws", path)
            self.assertEqual(caught.exception.kind, "out-of-scope")
        self.assertEqual(logic.locate("/ws", "src/lib.rs"), "/ws/src/lib.rs")
        self.assertEqual(logic.cap("héllo", 2), ("h\n[...truncated, 6 bytes total]", True))

    def test_a_chunk_counts_lines_from_one(self):
        part = logic.chunk("a\nb\nc\n", 2, 1, 100)
        self.assertEqual((part["content"], part["first_line"], part["lines"], part["total_lines"], part["more"]), ("b", 2, 1, 3, True))

    def test_files_are_read_and_listed(self):
        with tempfile.TemporaryDirectory() as root:
            os.mkdir(os.path.join(root, "sub"))
            with open(os.path.join(root, "a.txt"), "w") as file:
                file.write("one\n")
            self.assertEqual(logic.read(root, "a.txt"), "one\n")
            self.assertEqual(logic.listing(root, "", 10), (["a.txt", "sub/"], False))
            with self.assertRaises(logic.Refused) as caught:
                logic.read(root, "missing.txt")
            self.assertEqual(caught.exception.kind, "not-found")


if __name__ == "__main__":
    unittest.main()
