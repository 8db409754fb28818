// An uncaught error is a failure of the plugin: warden shows the first error the plugin wrote
// to stderr during the call. The engine prints an error's message without its name, and an
// Error thrown from a function that returns a `result` only as a value it could not encode; so
// print it here, name first, in the engine's form (message, `Stack:`, frames).
export const named = (methods) =>
  Object.fromEntries(
    Object.entries(methods).map(([key, method]) => [
      key,
      (...args) => {
        try {
          return method(...args);
        } catch (err) {
          if (err instanceof Error) {
            console.error(`${err.name}: ${err.message}\nStack:\n${err.stack ?? ""}`);
          }
          throw err;
        }
      },
    ]),
  );
