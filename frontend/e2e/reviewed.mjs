// Browser end-to-end: review scopes and "reviewed" marks, as a person uses
// them, controls found by role and name. Started by tests/e2e (Go,
// TestBrowserReviewScopes) on a session whose first turn wrote a.txt and
// b.txt and whose second wrote c.txt. It passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, openSession, screenshots, timeout } from './lib.mjs';

const url = env('FOYA_URL');
const { shot } = screenshots(env('FOYA_SHOTS'));

const browser = await launch();
let step = 'start';
let failed = false;
try {
  step = 'open the session';
  const { page, errors, main, item } = await openSession(browser, url, 'Review scopes');
  const review = main.getByRole('complementary', { name: 'Review changes' });
  const toggle = (n) => main.getByRole('button', { name: n === 0 ? 'Review' : `Review, ${n} to review`, exact: true });
  const scope = (name) => review.getByRole('group', { name: 'Show changes' }).getByRole('button', { name, exact: true });
  const row = (name) => review.getByRole('listitem', { name });

  // listed waits until the panel lists exactly these changes, in order
  // (rows are named "path, what it did").
  const listed = async (want, what) => {
    const deadline = Date.now() + timeout;
    for (;;) {
      const got = await review.locator('li[aria-label*=", "]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      if (JSON.stringify(got) === JSON.stringify(want)) return;
      if (Date.now() > deadline) throw new Error(`${what}: the panel lists ${JSON.stringify(got)}; want ${JSON.stringify(want)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const counts = async (n) => {
    await toggle(n).waitFor();
    await review.getByText(n === 0 ? 'Nothing to review' : `${n} to review`, { exact: true }).waitFor();
    if (n > 0) await item.getByText(`${n} to review`, { exact: true }).waitFor();
  };

  await item.getByText('3 to review', { exact: true }).waitFor();

  step = 'open the review';
  await toggle(3).click();
  await counts(3);
  check((await scope('Session').getAttribute('aria-pressed')) === 'true', 'the panel does not start on the Session view');
  await listed(['c.txt, created', 'a.txt, created', 'b.txt, created'], 'the session');

  step = 'mark b.txt as reviewed';
  await row('b.txt, created').getByRole('button', { name: 'Mark as reviewed', exact: true }).click();
  await row('b.txt, created').getByText('reviewed', { exact: true }).waitFor();
  await counts(2);
  // A reviewed change stays revertible.
  await row('b.txt, created').getByRole('button', { name: 'Revert', exact: true }).waitFor();
  await shot(page, 'reviewed-1-marked.png');

  step = 'this turn';
  await scope('This turn').click();
  await listed(['c.txt, created'], 'this turn');

  step = 'to review';
  await scope('To review').click();
  await listed(['c.txt, created', 'a.txt, created'], 'to review');
  await counts(2);
  await shot(page, 'reviewed-2-to-review.png');

  step = 'a reload shows the same';
  await page.reload();
  await main.getByRole('heading', { level: 2, name: 'Review scopes' }).waitFor();
  await toggle(2).click();
  check((await scope('To review').getAttribute('aria-pressed')) === 'true', 'the view chosen before the reload is not kept');
  await listed(['c.txt, created', 'a.txt, created'], 'to review after the reload');
  await counts(2);
  await scope('Session').click();
  await listed(['c.txt, created', 'a.txt, created', 'b.txt, created'], 'the session after the reload');
  await row('b.txt, created').getByText('reviewed', { exact: true }).waitFor();

  step = 'mark all shown as reviewed';
  await scope('To review').click();
  await review.getByRole('button', { name: 'Mark all shown as reviewed', exact: true }).click();
  await listed([], 'to review once all are marked');
  await review.getByText(/^Every change is reviewed\./).waitFor();
  await counts(0);
  check((await item.getByText(/to review/).count()) === 0, 'the session list still counts changes to review');
  await shot(page, 'reviewed-3-all-reviewed.png');

  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`reviewed.mjs: ${step}: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
