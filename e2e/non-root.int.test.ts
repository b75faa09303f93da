// The web mode for a person who is not root (issue 49), in Debian's
// Chromium: `pipefill ui --demo` run as an ordinary account serves the page
// and a demo share on loopback, and a quick assessment of it from the Start
// view reaches Results. The suite runs as root; the account is made for it.

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sambaAvailable } from '../src/lab/samba.js';
import type { UnprivilegedAccount } from '../src/test-support/unprivileged-account.js';
import { canActAsAnotherAccount, unprivilegedAccount } from '../src/test-support/unprivileged-account.js';
import type { WebMode } from './support.js';
import { canRunE2e, consoleErrors, launchChromium, screenshot, startWebMode } from './support.js';

describe.skipIf(!canRunE2e || !canActAsAnotherAccount || !sambaAvailable())('web mode as a person who is not root', () => {
  let account: UnprivilegedAccount;
  let web: WebMode;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  beforeAll(async () => {
    account = unprivilegedAccount();
    web = await startWebMode({ prefix: account.prefix() });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    errors = consoleErrors(page);
    await page.goto(web.url);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
    account?.remove();
  }, 30_000);

  it('assesses the demo share quickly, to Results', async () => {
    await page.getByRole('button', { name: 'Use the demo share' }).click();
    await expect(page.getByTestId('demo-description').textContent()).resolves.toMatch(/loopback|this machine/i);
    await page.getByLabel(/Quick run/).check();
    await page.getByRole('button', { name: 'Assess this share' }).click();
    await page.getByRole('button', { name: 'Start the run' }).click();
    await page.getByRole('button', { name: 'See the results' }).waitFor({ timeout: 120_000 });
    await page.getByRole('button', { name: 'See the results' }).click();
    await expect(page.getByTestId('headline').textContent()).resolves.toMatch(/^Your copies with Windows 11 24H2/);
    await screenshot(page, '10-results-not-root');
    expect(errors).toEqual([]);
  }, 180_000);
});
