// The web mode remembers what a person set across runs of `pipefill ui`
// (issue 35, item 6): each run serves the page on a new free port, a new
// origin with empty storage, so "keep my runs" lives in the services'
// settings file, not in the page.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRunE2e, consoleErrors, launchChromium, startWebMode } from './support.js';

describe.skipIf(!canRunE2e)('settings across two runs of the web mode', () => {
  let browser: Browser;
  const dataDir = mkdtempSync(join(tmpdir(), 'pipefill-e2e-settings-'));
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const keepBox = (page: Page) => page.getByRole('checkbox', { name: /Keep each finished assessment and capacity run/ });
  // The box is disabled until the services have told the choice, and while they save one: then it shows theirs.
  const settled = (page: Page) => keepBox(page).isEnabled();
  // Generous: on a busy machine the web mode's first answers can take seconds; a settled box is then read once.
  const SETTLE_MS = 30_000;

  it('"keep my runs" turned off in one run is still off in the next, on another port', async () => {
    const env = { PIPEFILL_DATA_DIR: dataDir, PIPEFILL_STORE: '' };
    const first = await startWebMode({ demo: false, env });
    let firstOrigin: string | undefined;
    try {
      const page = await browser.newPage();
      const errors = consoleErrors(page);
      await page.goto(first.url);
      firstOrigin = new URL(first.url).origin;
      await page.getByRole('heading', { name: 'Start' }).waitFor();
      await page.getByRole('button', { name: 'History', exact: true }).click();
      await page.getByRole('heading', { name: 'History' }).waitFor();
      await expect.poll(() => settled(page), { timeout: SETTLE_MS }).toBe(true);
      expect(await keepBox(page).isChecked()).toBe(true);
      await keepBox(page).uncheck();
      // Enabled again once the services have saved the choice: only then may the window close.
      await expect.poll(() => settled(page), { timeout: SETTLE_MS }).toBe(true);
      expect(await keepBox(page).isChecked()).toBe(false);
      await page.close();
      expect(errors).toEqual([]);
    } finally {
      await first.stop();
    }
    const second = await startWebMode({ demo: false, env });
    try {
      expect(new URL(second.url).origin).not.toBe(firstOrigin);
      const page = await browser.newPage();
      await page.goto(second.url);
      await page.getByRole('heading', { name: 'Start' }).waitFor();
      await page.getByRole('button', { name: 'History', exact: true }).click();
      await page.getByRole('heading', { name: 'History' }).waitFor();
      await expect.poll(() => settled(page), { timeout: SETTLE_MS }).toBe(true);
      expect(await keepBox(page).isChecked()).toBe(false);
      await page.close();
    } finally {
      await second.stop();
    }
  }, 90_000);
});
