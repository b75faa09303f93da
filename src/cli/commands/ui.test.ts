import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { demoCommandText } from './ui.js';

describe('the demo share for the CLI', () => {
  const demo = { share: '//10.77.0.2/share', user: 'pipefill', password: "a'b c$d", iperf: '10.77.0.2:5201', path: { kind: 'loopback' as const } };

  it('names the share, the user and the password, and a command line that uses them', () => {
    const [said, command] = demoCommandText(demo, ['ip', 'netns', 'exec', 'pf-branch']).split('\n');
    expect(said).toBe(`pipefill ui: the demo share is //10.77.0.2/share, user pipefill, password a'b c$d (this run's only). From the CLI:`);
    expect(command).toBe(
      "  PIPEFILL_DEMO_PASSWORD='a'\\''b c$d' ip netns exec pf-branch npm run --silent pipefill -- assess --share //10.77.0.2/share --user pipefill --password-env PIPEFILL_DEMO_PASSWORD --iperf 10.77.0.2:5201",
    );
  });

  it('quotes the password so that a shell hands it over as it is', () => {
    const assignment = demoCommandText(demo).split('\n')[1]?.trim().split(' npm ')[0] ?? '';
    const shell = spawnSync('sh', ['-c', `${assignment} sh -c 'printf %s "$PIPEFILL_DEMO_PASSWORD"'`], { encoding: 'utf8' });
    expect(shell.stdout).toBe(demo.password);
  });
});
