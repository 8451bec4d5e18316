// Browser end-to-end: the review panel beyond the session. "Compare with
// git HEAD" lists the edited file with its diff; "Export patch" downloads
// the session's patch (playwright's download event), named for the session.
// Started by tests/e2e (Go, TestBrowserPatchAndGitHead), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_SAVED     where to keep the downloaded patch (the Go test applies it)
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, openSession, screenshots } from './lib.mjs';
import { copyFileSync, readFileSync } from 'node:fs';

const url = env('FOYA_URL');
const savedPath = env('FOYA_SAVED');
const { shot } = screenshots(env('FOYA_SHOTS'));

const browser = await launch();
let step = 'start';
let failed = false;
try {
  const { page, errors, main } = await openSession(browser, url, 'Row two');
  await main.getByRole('button', { name: 'Review' }).click();
  const review = main.getByRole('complementary', { name: 'Review changes' });

  step = 'compare with git HEAD';
  await review.getByRole('button', { name: 'Compare with git HEAD' }).click();
  const view = review.getByRole('region', { name: 'Compare with git HEAD' });
  const files = view.getByRole('list', { name: 'Files that differ from HEAD' });
  const file = files.getByRole('listitem', { name: 'notes.txt' });
  await file.getByRole('table', { name: 'Diff of notes.txt' }).waitFor();
  await file.getByText('ROW 2', { exact: true }).waitFor();
  await view.getByText(/1 file differs from HEAD/).waitFor();
  check((await files.getByRole('listitem').count()) === 1, 'the comparison lists more than notes.txt');
  await shot(page, 'patch-1-git-head.png');

  step = 'export the patch';
  const [download] = await Promise.all([page.waitForEvent('download'), review.getByRole('button', { name: 'Export patch' }).click()]);
  check(download.suggestedFilename() === 'Row two.patch', `the download is named ${download.suggestedFilename()}; want Row two.patch`);
  const path = await download.path();
  const text = readFileSync(path, 'utf8');
  check(text.includes('diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n'), `the patch lacks notes.txt's header:\n${text}`);
  check(text.includes('-row 2\n+ROW 2\n'), `the patch lacks the edit:\n${text}`);
  copyFileSync(path, savedPath);
  await review.getByText(/Downloaded Row two\.patch: the patch of 1 file/).waitFor();
  await shot(page, 'patch-2-exported.png');

  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`patch.mjs: ${step}: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
