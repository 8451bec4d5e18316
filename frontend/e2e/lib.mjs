// What every browser end-to-end script shares: its inputs from the Go test,
// checks, calls to the kernel from the page, screenshots, and Debian's
// Chromium (never downloaded).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** timeout bounds every wait of a script (playwright's default for the page). */
export const timeout = 30_000;

/** env returns an input the Go test passes, and fails when it is missing. */
export function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this script through go test ./tests/e2e/`);
  return v;
}

/** check fails the script with message unless ok. */
export function check(ok, message) {
  if (!ok) throw new Error(message);
}

/**
 * api calls the kernel from the page, with the bearer token the page kept
 * for its tab (src/backend/token.ts): what the store holds.
 */
export const api = (page, method, ...args) =>
  page.evaluate(
    async ({ method, args }) => {
      const headers = { Authorization: `Bearer ${sessionStorage.getItem('foya.token')}` };
      const r = await fetch(`/api/call/${method}`, { method: 'POST', headers, body: JSON.stringify(args) });
      const body = await r.text();
      if (!r.ok) throw new Error(`${method}: ${r.status} ${body}`);
      return body === '' ? null : JSON.parse(body);
    },
    { method, args },
  );

/** screenshots saves pages into dir; saved lists the files written. */
export function screenshots(dir) {
  mkdirSync(dir, { recursive: true });
  const saved = [];
  return {
    saved,
    async shot(page, name) {
      const p = join(dir, name);
      await page.screenshot({ path: p });
      saved.push(p);
    },
  };
}

/** launch starts Chromium ($FOYA_CHROMIUM, else Debian's) without its own sandbox or a GPU. */
export function launch() {
  return chromium.launch({
    executablePath: process.env.FOYA_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
}

/**
 * pageErrors collects what page throws and what its Content-Security-Policy
 * refuses (Chromium says so on the console): foya serve's CSP must not
 * break the page.
 */
export function pageErrors(page) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.text().includes('Content Security Policy')) errors.push(m.text());
  });
  return errors;
}

/** newPage opens a 1024x640 page; errors collects what the page threw or its CSP refused. */
export async function newPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1024, height: 640 } });
  const page = await context.newPage();
  page.setDefaultTimeout(timeout);
  return { page, errors: pageErrors(page) };
}

/**
 * openSession opens a new page at the token URL and the session titled
 * title from the sidebar's list, and waits for its heading. It returns the
 * page, what the page threw (errors), the main region, the sidebar and the
 * session's item in the list.
 */
export async function openSession(browser, url, title) {
  const { page, errors } = await newPage(browser);
  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);
  const main = page.getByRole('main');
  const sidebar = page.getByRole('complementary', { name: 'Sessions sidebar' });
  const item = sidebar.getByRole('list', { name: 'Sessions' }).getByRole('button', { name: title, exact: true });
  await item.click();
  await main.getByRole('heading', { level: 2, name: title }).waitFor();
  return { page, errors, main, sidebar, item };
}

/**
 * transcriptSettled waits until the transcript (log) shows its list alone.
 * In the first frames after a page (re)load, the latest rows show over the
 * list, hidden until it has measured itself ("Latest", ConversationView),
 * and a text query meanwhile finds each of those rows twice. For a session
 * with rows only (an empty one has no list).
 */
export const transcriptSettled = (log) =>
  log.locator('.convo-scroller:not(.convo-unsettled)').waitFor({ state: 'attached' });

/**
 * reveal scrolls the transcript from its start down, half a screen at a
 * time, until loc is drawn (the list is virtualized: rows far from the
 * view are not in the page).
 */
export async function reveal(log, loc) {
  const scroller = log.locator('[data-virtuoso-scroller]');
  await scroller.evaluate((el) => el.scrollTo(0, 0));
  let still = 0;
  for (let i = 0; i < 400 && still < 5; i++) {
    if ((await loc.count()) > 0) {
      try {
        await loc.first().scrollIntoViewIfNeeded({ timeout: 5000 });
        return loc.first();
      } catch {
        // The list drew its rows anew meanwhile and the row went with
        // them: look again from here.
      }
    }
    const moved = await scroller.evaluate((el) => {
      const before = el.scrollTop;
      el.scrollBy(0, el.clientHeight / 2);
      return el.scrollTop !== before;
    });
    still = moved ? 0 : still + 1;
    await new Promise((r) => setTimeout(r, 30));
  }
  throw new Error('not found in the transcript');
}
