"""Native tests of logic.py: `python3 -m unittest` (no wasm, no componentize-py)."""

import unittest

import logic


class Tests(unittest.TestCase):
    def test_counts_events_and_summarises_at_turn_end(self):
        counts = logic.Counts()
        self.assertIsNone(counts.count("prompt-submitted"))
        self.assertEqual(counts.count("turn-ended"), "event counts: prompt-submitted=1 turn-ended=1")

    def test_event_classes_name_their_kind(self):
        self.assertEqual(logic.kind_of("Event_PromptSubmitted"), "prompt-submitted")
        self.assertEqual(logic.kind_of("Event_ToolRan"), "tool-ran")


if __name__ == "__main__":
    unittest.main()
