// Browser end-to-end: Foya's credential reaches no other local server
// (cookies are not scoped to a port). Started by tests/e2e (Go), which
// passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_OTHER     another web server on another port of 127.0.0.1, whose
//                  page reports what it can reach (the Go test checks
//                  every request that server got)
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// The Foya page is opened and used first, as a person does; then the
// other server's page is opened in a new tab of the same browser, and the
// Foya tab itself is sent there. Exits 0 when every check holds, 1 with
// the reason otherwise.
import { check, env, launch, newPage } from './lib.mjs';

const url = env('FOYA_URL');
const other = env('FOYA_OTHER');

const browser = await launch();
let failed = false;
try {
  const { page, errors } = await newPage(browser);
  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);
  // The app signed in: its calls answer (the first-run view lists the
  // model servers it probed), and the token left the address bar.
  await page.getByRole('main').getByRole('heading', { level: 2, name: 'Set up Foya' }).waitFor();
  await page.waitForFunction(() => !location.href.includes('token='));
  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);

  // A new tab on the other server, in the same browser profile.
  const tab = await page.context().newPage();
  await tab.goto(other);
  await tab.waitForFunction(() => document.title === 'reported');
  // The Foya tab sent to the other server: its storage is Foya's origin's.
  await page.goto(other);
  await page.waitForFunction(() => document.title === 'reported');
  console.log('ok: the other server\'s page ran twice and reported what it reached');
} catch (err) {
  failed = true;
  console.error(`FAIL: ${err.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
