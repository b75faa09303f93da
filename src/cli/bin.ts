// Process entry: run the CLI with this process's arguments and exit with its code.
import { runCli } from './main.js';
import { endOnUnexpectedErrors } from './unexpected-error.js';

endOnUnexpectedErrors();
process.exitCode = await runCli(process.argv.slice(2));
