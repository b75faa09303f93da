// Passwords come from an environment variable or a prompt, never from the
// command line (where `ps` and shell history would show them).

import { PipefillInputError } from '../model/errors.js';

/** Passwords taken out of the environment, by variable, for a second read in the same process (the app's service runs many). */
const taken = new Map<string, string>();

/**
 * The password in `envName`, taken out of this process's environment as it
 * is read (as PGPASSWORD is: src/platform/pg-password.ts), so no child
 * inherits it: a copy-test starts ss some 20 times, and iperf3 and Chromium
 * would get it too. A later read of the same variable gets what was taken,
 * unless the variable has been set again.
 */
function takeFromEnvironment(envName: string): string | undefined {
  const value = process.env[envName];
  if (value !== undefined) {
    taken.set(envName, value);
    Reflect.deleteProperty(process.env, envName);
    return value;
  }
  return taken.get(envName);
}

export async function readPassword(envName: string | undefined, user: string): Promise<string> {
  if (envName !== undefined) {
    const value = takeFromEnvironment(envName);
    if (value === undefined)
      throw new PipefillInputError(
        `The environment variable ${envName} is not set.`,
        `Set it to ${user}'s password first, e.g. read -rs ${envName}; export ${envName}.`,
      );
    return value;
  }
  if (!process.stdin.isTTY) {
    throw new PipefillInputError(
      'No password given.',
      'Name an environment variable that holds it with --password-env VAR, or run in a terminal to be asked; or log on with Kerberos (kinit user@REALM, then name the server, not its address): a ticket held is used with no password.',
    );
  }
  return promptHidden(`Password for ${user}: `);
}

/** Reads a line from the terminal without echoing it. */
function promptHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    let typed = '';
    const finish = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new PipefillInputError('Cancelled at the password prompt.', 'Run the command again.'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}
