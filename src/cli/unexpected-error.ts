// What a person reads when a command fails in a way Pipefill did not foresee:
// one line and a hint, never a stack trace (issue 49). The system's own
// errors carry a code that says what to do (a file this user may not write,
// a port taken, a program not installed); anything else is a fault of
// Pipefill's, and PIPEFILL_DEBUG=1 shows where it happened.

interface SystemError {
  readonly code?: unknown;
  readonly path?: unknown;
  readonly syscall?: unknown;
  readonly port?: unknown;
}

const HINTS: Readonly<Record<string, string>> = {
  EACCES: 'This user may not do that: run the command as a user who may (sudo, for what changes the system), or give it a folder of your own.',
  EPERM: 'This user may not do that: run the command as a user who may (sudo, for what changes the system), or give it a folder of your own.',
  EROFS: 'That file system is read-only: give the command a folder it can write.',
  ENOSPC: 'The disk is full: free some space and run it again.',
  EADDRINUSE: 'Another program holds that port: choose another (--port), or leave --port out for a free one.',
  ENOENT: 'Something it needs is missing: check the path, or install the program it names (sudo apt-get install ...).',
};

/** The message's first line (Output makes what it prints safe for a terminal). */
function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? text).trim();
}

/** "error: ...\nhint: ..." for an error no command turned into a PipefillError; with `debug`, the stack after it. */
export function unexpectedErrorText(error: unknown, debug = false): string {
  const message = error instanceof Error ? error.message : String(error);
  const system = (typeof error === 'object' && error !== null ? error : {}) as SystemError;
  const code = typeof system.code === 'string' ? system.code : undefined;
  const hint =
    (code ? HINTS[code] : undefined) ??
    'This is a fault in Pipefill: run it again with PIPEFILL_DEBUG=1 to see where it happened, and report that with the command you ran.';
  const stack = debug && error instanceof Error && error.stack ? `\n${error.stack}` : '';
  return `error: ${firstLine(message) || 'an unknown failure'}\nhint: ${hint}${stack}`;
}

/**
 * The process's last resort: a failure no command awaited (a server's
 * background task, a socket's late error) ends the process with the same
 * one line and hint, not Node's stack trace. For the CLI's entry points only.
 */
export function endOnUnexpectedErrors(write: (text: string) => void = (text) => process.stderr.write(text)): void {
  const end = (error: unknown) => {
    write(`${unexpectedErrorText(error, process.env.PIPEFILL_DEBUG === '1')}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', end);
  process.on('unhandledRejection', end);
}
