// Browser end-to-end: the review of a two-hunk edit, hunk by hunk, as a
// person does it, controls found by role and name, the disk checked after
// each step. Started by tests/e2e (Go, TestBrowserHunkReview), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_NOTES     the edited file
//   FOYA_BEFORE    its content before the edit
//   FOYA_EDITED    its content after the edit (two hunks)
//   FOYA_ONLY_TWO  its content with hunk 1 reverted
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, newPage, screenshots, timeout } from './lib.mjs';
import { existsSync, readFileSync } from 'node:fs';

const url = env('FOYA_URL');
const notes = env('FOYA_NOTES');
const before = env('FOYA_BEFORE');
const edited = env('FOYA_EDITED');
const onlyTwo = env('FOYA_ONLY_TWO');
const { shot } = screenshots(env('FOYA_SHOTS'));

const read = (p) => (existsSync(p) ? readFileSync(p, 'utf8') : null);

// onDisk waits until the file holds want: a confirmed revert reaches the
// disk through the kernel a moment after the dialog closes.
async function onDisk(want, what) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const got = read(notes);
    if (got === want) return;
    if (Date.now() > deadline) throw new Error(`${what}: notes.txt holds ${JSON.stringify(got)}; want ${JSON.stringify(want)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const browser = await launch();
let step = 'start';
let failed = false;
try {
  const { page, errors } = await newPage(browser);
  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);
  const main = page.getByRole('main');
  const sidebar = page.getByRole('complementary', { name: 'Sessions sidebar' });
  await sidebar.getByRole('list', { name: 'Sessions' }).getByRole('button', { name: 'Hunk review', exact: true }).click();
  await main.getByRole('heading', { level: 2, name: 'Hunk review' }).waitFor();

  const review = main.getByRole('complementary', { name: 'Review changes' });
  const edit = review.getByRole('listitem', { name: /^notes\.txt, edited/ });
  const hunks = edit.getByRole('table', { name: 'Diff of notes.txt' });
  const openReview = async () => {
    await main.getByRole('button', { name: 'Review' }).click();
    await edit.getByRole('button', { name: 'Show diff' }).click();
    await hunks.waitFor();
  };
  // One change or hunk reverts (and undoes) at once: no dialog opens.
  const noDialog = async (what) => check((await page.getByRole('dialog').count()) === 0, `a dialog opened for ${what}`);
  const gone = async (loc, what) => {
    await loc.waitFor({ state: 'detached' });
    check((await loc.count()) === 0, `${what} is still shown`);
  };

  step = 'open the review';
  await openReview();
  await hunks.getByRole('button', { name: 'Revert hunk 1' }).waitFor();
  await hunks.getByRole('button', { name: 'Revert hunk 2' }).waitFor();

  step = 'revert hunk 1';
  await hunks.getByRole('button', { name: 'Revert hunk 1' }).click();
  await onDisk(onlyTwo, 'after reverting hunk 1');
  await noDialog('a hunk revert');
  await edit.getByText('partly reverted (1 of 2 hunks)').waitFor();
  await hunks.getByRole('button', { name: 'Undo hunk 1' }).waitFor();
  await hunks.getByRole('button', { name: 'Revert hunk 2' }).waitFor();
  await edit.getByRole('button', { name: 'Revert', exact: true }).waitFor();
  await review.getByRole('status').getByText(/Hunk 1 of the edit of .* is undone in notes\.txt\./).waitFor();
  await shot(page, 'hunks-1-partly-reverted.png');

  step = 'revert hunk 2';
  await hunks.getByRole('button', { name: 'Revert hunk 2' }).click();
  await onDisk(before, 'after reverting hunk 2');
  await edit.getByText('reverted', { exact: true }).waitFor();
  await hunks.getByRole('button', { name: 'Undo hunk 2' }).waitFor();
  await gone(edit.getByRole('button', { name: 'Revert', exact: true }), 'Revert on a reverted change');

  step = 'undo';
  await edit.getByRole('button', { name: 'Undo', exact: true }).click();
  await onDisk(onlyTwo, 'after the undo');
  await noDialog('an undo');
  await review.getByRole('status').getByText(/^Hunk 2 of the edit of .* is back in notes\.txt\./).waitFor();
  await edit.getByText('partly reverted (1 of 2 hunks)').waitFor();
  await hunks.getByRole('button', { name: 'Revert hunk 2' }).waitFor();
  await hunks.getByRole('button', { name: 'Undo hunk 1' }).waitFor();

  step = 'a reload shows the same';
  await page.reload();
  await main.getByRole('heading', { level: 2, name: 'Hunk review' }).waitFor();
  await openReview();
  await edit.getByText('partly reverted (1 of 2 hunks)').waitFor();
  await hunks.getByRole('button', { name: 'Revert hunk 2' }).waitFor();
  await hunks.getByRole('button', { name: 'Undo hunk 1' }).waitFor();

  step = 'the keyboard';
  // N to a hunk (focused), again to hunk 2, R reverts it, U undoes it.
  await edit.focus();
  await page.keyboard.press('n');
  await page.keyboard.press('n');
  check((await page.evaluate(() => document.activeElement && document.activeElement.textContent)).startsWith('Hunk 2'), 'N twice does not focus hunk 2');
  await page.keyboard.press('r');
  await onDisk(before, 'after R on hunk 2');
  await noDialog('a hunk revert from the keyboard');
  await hunks.getByRole('button', { name: 'Undo hunk 2' }).waitFor();
  await page.keyboard.press('u');
  await onDisk(onlyTwo, 'after U');
  await hunks.getByRole('button', { name: 'Revert hunk 2' }).waitFor();

  step = 'revert again';
  await edit.getByRole('button', { name: 'Revert', exact: true }).click();
  await onDisk(before, 'after reverting again');
  await edit.getByText('reverted', { exact: true }).waitFor();
  await shot(page, 'hunks-2-reverted-again.png');

  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
  check(read(notes) !== edited, 'notes.txt still holds the edit');
} catch (e) {
  failed = true;
  console.error(`hunks.mjs: ${step}: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
