"""The interceptor's logic, apart from the WIT glue in app.py so that `python3 -m unittest`
checks it without building the component: when the prompt mentions a configured word, add a
system item with configured context.

Config: `word` (required), `context` (the text to add; default names the word).
"""

from typing import Dict, Optional, Tuple


def settings(config: Dict[str, str]) -> Tuple[str, str]:
    """The word and the context of `config`; ValueError says what is wrong."""
    word = config.get("word")
    if word is None:
        raise ValueError("missing config key `word`")
    if word == "":
        raise ValueError("config key `word` must not be empty")
    return word, config.get("context", f"The prompt mentions {word}.")


def decide(word: str, context: str, text: str) -> Optional[str]:
    """The text of the system item to add to a prompt, or None to let it pass unchanged."""
    return context if word in text else None
