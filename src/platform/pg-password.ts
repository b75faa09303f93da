// PGPASSWORD, taken out of the environment once: Pipefill's own store
// connection uses it (node-postgres gets it explicitly), and no child it
// starts (the browser, Chromium for a PDF, testparm, iperf3, smbd) inherits
// a team database's password it has no use for.

let taken = false;
let password: string | undefined;

/** The PGPASSWORD this process started with; the first call removes it from `env`. */
export function takePgPassword(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!taken) {
    taken = true;
    password = env.PGPASSWORD;
    delete env.PGPASSWORD;
  }
  return password;
}
