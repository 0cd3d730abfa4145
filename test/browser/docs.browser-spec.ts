import { access, mkdir } from 'node:fs/promises';

import { chromium, type Browser } from 'playwright-core';

import { plantRow } from '../support/database.js';
import { TEST_TOKEN } from '../support/environment.js';
import { useTestApp } from '../support/app.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = 'test/artifacts/docs-try-it-out.png';

const chromiumFound = await access(CHROMIUM).then(
  () => true,
  () => false,
);
if (!chromiumFound) {
  process.stdout.write(
    `\n  Browser test SKIPPED: no Chromium at ${CHROMIUM} (install Debian's chromium package, or set CHROMIUM_PATH)\n`,
  );
}

(chromiumFound ? describe : describe.skip)('the Swagger UI in a real browser', () => {
  const testApp = useTestApp();
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('authorizes with a bearer token, runs "Try it out" on POST /plants and gets the 200 Plant', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') {
        problems.push(message.text());
      }
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${testApp.url}/docs`);
    await page.locator('#operations-plants-addPlant').waitFor();

    await page.locator('button.authorize').first().click();
    await page.locator('.modal-ux input[type=text], .modal-ux input[type=password]').first().fill(TEST_TOKEN);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    const operation = page.locator('#operations-plants-addPlant');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation
      .locator('textarea.body-param__text')
      .fill(JSON.stringify({ id: 424242, name: 'Browser plant', tag: 'swagger-ui' }, null, 2));
    await operation.locator('button.execute').click();

    const status = operation.locator('.live-responses-table .response .response-col_status');
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    const body = await operation
      .locator('.live-responses-table .response-col_description pre')
      .first()
      .textContent();
    expect(JSON.parse(body ?? '')).toStrictEqual({ name: 'Browser plant', tag: 'swagger-ui' });

    await expect(plantRow(testApp.db, 424242)).resolves.toStrictEqual({
      id: '424242',
      name: 'Browser plant',
      tag: 'swagger-ui',
    });
    // The security headers (CSP included) let the page run without a single error.
    expect(problems).toStrictEqual([]);

    await mkdir('test/artifacts', { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });
});
