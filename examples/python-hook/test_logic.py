"""Native tests of logic.py: `python3 -m unittest` (no wasm, no componentize-py)."""

import unittest

import logic


class Tests(unittest.TestCase):
    def test_a_turn_is_summed_up_and_the_next_starts_afresh(self):
        tally = logic.Tally(10)
        tally.tool_ran("read_file", False)
        tally.tool_ran("shell", True)
        tally.tool_ran("read_file", False)
        tally.tool_denied("write_file")
        self.assertEqual(
            tally.turn_ended(),
            ("info", "tools: 3 ran (read_file 2, shell 1); 1 failed (shell 1); 1 denied (write_file 1)"),
        )
        self.assertEqual(tally.turn_ended(), ("info", "tools: none ran"))

    def test_a_busy_turn_is_a_warning(self):
        tally = logic.Tally(1)
        tally.tool_ran("grep", False)
        tally.tool_ran("grep", False)
        self.assertEqual(tally.turn_ended(), ("warn", "tools: 2 ran (grep 2); more than warn_after = 1"))

    def test_warn_after_is_a_positive_number(self):
        self.assertEqual(logic.warn_after({}), 10)
        self.assertEqual(logic.warn_after({"warn_after": " 3 "}), 3)
        for bad in ["0", "-1", "many"]:
            with self.assertRaisesRegex(ValueError, "warn_after"):
                logic.warn_after({"warn_after": bad})

    def test_only_a_deny_is_a_denial(self):
        self.assertTrue(logic.denied_action("ToolAction_Deny"))
        self.assertFalse(logic.denied_action("ToolAction_Allow"))
        self.assertFalse(logic.denied_action("ToolAction_Rewrite"))


if __name__ == "__main__":
    unittest.main()
