"""Native tests of logic.py: `python3 -m unittest` (no wasm, no componentize-py)."""

import unittest

import logic


class Tests(unittest.TestCase):
    def test_adds_the_context_only_when_the_word_is_there(self):
        self.assertEqual(logic.decide("deploy", "Deploys go through CI.", "how do I deploy?"), "Deploys go through CI.")
        self.assertIsNone(logic.decide("deploy", "Deploys go through CI.", "hello"))

    def test_the_config_needs_a_word(self):
        self.assertEqual(logic.settings({"word": "deploy"}), ("deploy", "The prompt mentions deploy."))
        with self.assertRaisesRegex(ValueError, "missing config key `word`"):
            logic.settings({})
        with self.assertRaisesRegex(ValueError, "must not be empty"):
            logic.settings({"word": ""})


if __name__ == "__main__":
    unittest.main()
