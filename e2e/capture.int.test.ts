// The Capture view (issue 53): a capture file named on the page is read by
// the services and shown in the sentences `pipefill analyze` prints, each
// copy's verdict the same in both.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pcapFile } from '../src/test-support/pcap-builder.js';
import { conversation, pipelinedWriteMessages } from '../src/test-support/smb-conversation.js';
import { canRunE2e, CLI, consoleErrors, launchChromium, screenshot, startWebMode } from './support.js';
import type { WebMode } from './support.js';

describe.skipIf(!canRunE2e)('the Capture view', () => {
  let browser: Browser;
  let web: WebMode;
  const dir = mkdtempSync(join(tmpdir(), 'pipefill-e2e-capture-'));
  const capture = join(dir, 'slow-copy.pcap');
  beforeAll(async () => {
    // Sixteen 1 MiB writes, two out at a time, over a 20 ms path (at 10 Gb/s, as their times make it); a window
    // scale so TCP's windows do not hold them.
    writeFileSync(capture, pcapFile(conversation(pipelinedWriteMessages(16, 2, 64, 0.02), { windowScale: 7 })));
    browser = await launchChromium();
    web = await startWebMode({ demo: false, env: { PIPEFILL_DATA_DIR: dir, PIPEFILL_STORE: '' } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows each copy with the verdict the CLI prints, and a clear error for a file that is not a capture', async () => {
    const page = await browser.newPage();
    const errors = consoleErrors(page);
    await page.goto(web.url);
    await page.getByRole('button', { name: 'Capture', exact: true }).click();
    await page.getByRole('heading', { name: 'Capture', exact: true }).waitFor();
    await page.getByLabel(/Capture file on this machine/).fill(capture);
    await page.getByLabel(/Line rate/).fill('10gbit');
    await page.getByRole('button', { name: 'Analyse' }).click();
    const verdict = page.getByTestId('capture-copy-verdict');
    await verdict.first().waitFor({ timeout: 30_000 });
    const shown = await verdict.allTextContents();
    const printed = spawnSync(process.execPath, [CLI, 'analyze', capture, '--bandwidth', '10gbit'], { encoding: 'utf8', timeout: 60_000 });
    expect(printed.status, printed.stderr).toBe(0);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(/^write of 16\.8 MB: .* the model gives .* limited by /);
    expect(printed.stdout).toContain(`  ${shown[0] ?? ''}\n`);
    await screenshot(page, 'capture');

    const notCapture = join(dir, 'notes.txt');
    writeFileSync(notCapture, 'not a capture at all');
    await page.getByLabel(/Capture file on this machine/).fill(notCapture);
    await page.getByRole('button', { name: 'Analyse' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 30_000 }).toMatch(/pcap|capture/i);
    expect(await verdict.count()).toBe(0);
    expect(errors).toEqual([]);
  }, 120_000);
});
