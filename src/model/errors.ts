/**
 * Bad input from a person or a file. Carries a message that says what was
 * wrong and a hint that says what would have been right, so every front end
 * (CLI, web, Electron) can show both without parsing text.
 */
export class PipefillInputError extends Error {
  override readonly name = 'PipefillInputError';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}
