/**
 * An error a person can act on: a message that says what went wrong and a
 * hint that says what to do, so every front end (CLI, web, Electron) can show
 * both without parsing text. `kind` tells programs apart from people.
 */
export class PipefillError extends Error {
  override readonly name: string = 'PipefillError';
  constructor(
    readonly kind: string,
    message: string,
    readonly hint: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Bad input from a person or a file: what was wrong, and what would have been right. */
export class PipefillInputError extends PipefillError {
  override readonly name = 'PipefillInputError';
  constructor(message: string, hint: string) {
    super('bad-input', message, hint);
  }
}
