// The interceptor's logic, apart from the WIT glue in app.js so that `node --test` checks it
// without building the component: when the prompt mentions a configured word, add a system
// item with configured context.
//
// Config: `word` (required), `context` (the text to add; default names the word).

/** The word and the context of `config` (a Map); throws a string saying what is wrong. */
export function settings(config) {
  const word = config.get("word");
  if (word === undefined) throw "missing config key `word`";
  if (word === "") throw "config key `word` must not be empty";
  return { word, context: config.get("context") ?? `The prompt mentions ${word}.` };
}

/** The text of the system item to add to a prompt, or null to let it pass unchanged. */
export function decide({ word, context }, text) {
  return text.includes(word) ? context : null;
}
