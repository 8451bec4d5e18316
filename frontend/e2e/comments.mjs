// Browser end-to-end: review comments on two files, as a person writes
// them, controls found by role and name, then "Send to the agent". Started
// by tests/e2e (Go, TestBrowserReviewComments), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, openSession, screenshots } from './lib.mjs';

const url = env('FOYA_URL');
const { shot } = screenshots(env('FOYA_SHOTS'));

const browser = await launch();
let step = 'start';
let failed = false;
try {
  const { page, errors, main } = await openSession(browser, url, 'Comment review');

  step = 'open the review';
  await main.getByRole('button', { name: 'Review' }).click();
  const review = main.getByRole('complementary', { name: 'Review changes' });
  const a = review.getByRole('listitem', { name: /^a\.txt, edited/ });
  const b = review.getByRole('listitem', { name: /^b\.txt, edited/ });

  step = 'comment on line 2 of a.txt';
  await a.getByRole('button', { name: 'Show diff' }).click();
  await a.getByRole('table', { name: 'Diff of a.txt' }).waitFor();
  // One comment button for the diff's lines: by the line under the mouse.
  await a.locator('td.diff-code', { hasText: /^ROW 2$/ }).hover();
  await a.getByRole('button', { name: 'Comment on line 2', exact: true }).click();
  const boxA = a.getByRole('textbox', { name: 'Comment on a.txt line 2' });
  await boxA.fill('Keep row 2 lower case.');
  await boxA.press('Control+Enter');
  await boxA.waitFor({ state: 'detached' });
  await review.getByRole('heading', { name: 'Comments (1)' }).waitFor();

  step = 'comment on hunk 1 of b.txt';
  await b.getByRole('button', { name: 'Show diff' }).click();
  await b.getByRole('table', { name: 'Diff of b.txt' }).waitFor();
  await b.getByRole('button', { name: 'Comment on hunk 1' }).click();
  const boxB = b.getByRole('textbox', { name: 'Comment on b.txt lines 2-8' });
  await boxB.fill('Why upper case here?');
  await b.getByRole('button', { name: 'Save comment' }).click();
  await boxB.waitFor({ state: 'detached' });
  await review.getByRole('heading', { name: 'Comments (2)' }).waitFor();
  const list = review.getByRole('list', { name: 'Comments' });
  await list.getByRole('listitem', { name: 'Comment on a.txt line 2' }).getByText('not sent').waitFor();
  await list.getByRole('listitem', { name: 'Comment on b.txt lines 2-8' }).getByText('not sent').waitFor();
  await shot(page, 'comments-1-two-comments.png');

  step = 'send to the agent';
  await review.getByRole('button', { name: 'Send to the agent' }).click();
  await review.getByText('2 comments sent to the agent.').waitFor();
  await list.getByRole('listitem', { name: 'Comment on a.txt line 2' }).getByText('sent', { exact: true }).waitFor();
  await list.getByRole('listitem', { name: 'Comment on b.txt lines 2-8' }).getByText('sent', { exact: true }).waitFor();
  // The conversation shows the comments as the user's message of the new turn.
  await main.getByText(/Review comments on your changes/).first().waitFor();
  await main.getByText('I will act on your review.').waitFor();
  await shot(page, 'comments-2-sent.png');

  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`comments.mjs: ${step}: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
