// Browser end-to-end: a run whose model server cannot be reached says so in
// words with Retry and Details; Retry, once the profile points at a server
// that answers, gives the answer; the Settings dialog gives focus back to
// the button that opened it.
// Started by tests/e2e (Go, TestBrowserRunErrorInWordsAndRetry), which passes:
//   FOYA_URL        the token URL foya serve printed
//   FOYA_SESSION    a session whose provider "scripted" points at a closed port
//   FOYA_DOWN_HOST  that closed port's host:port
//   FOYA_MODEL_URL  a scripted model server's base URL, which answers
//   FOYA_SHOTS      the folder to save screenshots in
//   FOYA_CHROMIUM   the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { api, check, env, launch, newPage, screenshots } from './lib.mjs';

const url = env('FOYA_URL');
env('FOYA_SESSION');
const down = env('FOYA_DOWN_HOST');
const modelURL = env('FOYA_MODEL_URL');
const { shot } = screenshots(env('FOYA_SHOTS'));

const browser = await launch();
let step = 'start';
let failed = false;
try {
  const { page, errors } = await newPage(browser);
  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);
  const sidebar = page.getByRole('complementary', { name: 'Sessions sidebar' });
  const main = page.getByRole('main');
  const log = page.getByRole('log', { name: 'Conversation', includeHidden: true });

  step = 'send a prompt while the model server is down';
  await sidebar.getByRole('list', { name: 'Sessions' }).getByRole('button', { name: 'Errors and retry', exact: true }).click();
  await main.getByRole('form', { name: 'Send a message' }).getByRole('textbox', { name: 'Message' }).fill('Say hello');
  await page.keyboard.press('Enter');

  step = 'the failure in words, with Retry and Details';
  const alert = log.getByRole('alert', { name: /The run failed/ });
  await alert.waitFor();
  const words = await alert.textContent();
  check(words.includes(`Foya could not reach the model server at ${down}.`), `the failure does not say it in words: ${words}`);
  check(words.indexOf('could not reach') < words.indexOf('connection refused'), `the technical text comes before the sentence: ${words}`);
  const details = alert.locator('details');
  check(!(await details.evaluate((d) => d.open)), 'Details is open before it is asked for');
  await details.getByText('Details', { exact: true }).click();
  check(await details.evaluate((d) => d.open), 'Details did not open');
  check((await details.textContent()).includes('connection refused'), 'Details does not hold the technical text');
  await shot(page, 'errors-run-failed.png');

  step = 'fix the profile, then Retry';
  await api(page, 'EditProvider', 'scripted', { baseUrl: modelURL });
  await alert.getByRole('button', { name: 'Retry' }).click();
  await log.getByText('Hello after the retry.').waitFor();
  check((await log.getByText('Say hello', { exact: true }).count()) === 2, 'Retry did not send the same prompt as a new turn');

  step = 'Settings gives focus back to its button';
  // A handle, not a locator: while the dialog is open the rest of the page
  // is hidden from the accessibility tree, so a role locator cannot find it.
  const open = await sidebar.getByRole('button', { name: 'Settings', exact: true }).elementHandle();
  await open.click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  check(!(await open.evaluate((el) => el === document.activeElement)), 'focus stayed on the button while the dialog is open');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await page.waitForFunction((el) => el === document.activeElement, open);

  check(errors.length === 0, `page errors: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`step "${step}": ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
