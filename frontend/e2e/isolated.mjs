// Browser end-to-end: an isolated session from the UI (issue 29 item 1,
// docs/isolated-sessions.md), controls found by role and name. Started by
// tests/e2e (Go, TestBrowserIsolatedSession), which passes:
//   FOYA_URL       the token URL foya serve printed (a profile "scripted")
//   FOYA_PROJECT   a git repository with notes.txt committed, draft.txt
//                  not, and a setup command set for it
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// The scripted model writes notes.txt and added.txt. Exits 0 when every
// check holds, 1 with the reason otherwise.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, check, env, launch, newPage, screenshots } from './lib.mjs';

const url = env('FOYA_URL');
const project = env('FOYA_PROJECT');
const { shot } = screenshots(env('FOYA_SHOTS'));
const title = 'Isolated notes';

const browser = await launch();
let step = 'start';
let failed = false;
try {
  const { page, errors } = await newPage(browser);
  await page.setViewportSize({ width: 1360, height: 860 });
  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);
  const main = page.getByRole('main');
  const sidebar = page.getByRole('complementary', { name: 'Sessions sidebar' });

  step = 'New session: an isolated copy on a branch';
  await sidebar.getByRole('button', { name: 'New session' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.waitFor();
  await dialog.getByRole('combobox', { name: 'Folder' }).fill(project);
  await dialog.getByRole('textbox', { name: 'Title (optional)' }).fill(title);
  check(await dialog.getByRole('radio', { name: /^Work in the folder/ }).isChecked(), 'Work in the folder is not the default');
  const isolated = dialog.getByRole('radio', { name: /^Isolated copy/ });
  await isolated.focus();
  await page.keyboard.press('Space');
  check(await isolated.isChecked(), 'Space did not choose Isolated copy');
  const branch = dialog.getByRole('textbox', { name: /^Branch/ });
  await branch.fill('bad branch');
  await dialog.getByText('A branch name has no spaces.').waitFor();
  await branch.fill('feature/notes');
  await dialog.getByRole('radio', { name: /^Auto/ }).check();
  await shot(page, 'isolated-1-new-session.png');
  await dialog.getByRole('button', { name: 'Create session' }).click();
  await dialog.waitFor({ state: 'detached' });
  await main.getByRole('heading', { level: 2, name: title }).waitFor();

  step = 'the header says where it works; the setup runs, its output streamed';
  await main.getByText('Worktree on branch feature/notes').waitFor();
  const setup = main.getByRole('region', { name: 'Setup command' });
  await setup.getByText('Setting up the isolated copy…').waitFor();
  await setup.getByRole('log', { name: 'Setup output' }).getByText('preparing the copy').waitFor();
  check(await main.getByRole('button', { name: 'Apply to the folder…' }).isDisabled(), 'Apply is not disabled while setup runs');

  step = 'a message sent while setup runs waits for it';
  await main.getByText(/The isolated copy’s setup command is running: runs wait for it/).waitFor();
  const box = main.getByRole('textbox', { name: 'Message' });
  await box.fill('Edit the notes');
  await box.press('Enter');
  await main.getByRole('list', { name: 'Queued messages' }).getByText('Edit the notes').waitFor();
  await shot(page, 'isolated-2-setup-running.png');
  const [made] = (await api(page, 'Sessions')).filter((x) => x.title === title);
  check(made && made.isolation && made.isolation.kind === 'worktree', `the session is not a worktree: ${JSON.stringify(made)}`);
  step = 'setup ends when told to';
  writeFileSync(join(made.workdir, '.setup-go'), '');
  const finished = setup.getByRole('button', { name: /^Setup finished/ });
  await finished.waitFor();
  check((await finished.getAttribute('aria-expanded')) === 'false', 'the output of a setup that succeeded is not folded');
  await finished.click();
  const output = setup.getByRole('log', { name: 'Setup output' });
  await output.getByText('setup ready').waitFor();
  check((await output.textContent()).includes('preparing the copy'), `the setup output shows ${JSON.stringify(await output.textContent())}`);
  // The folder's uncommitted draft.txt stays in the folder: the session says so.
  const dirty = main.getByText(/The folder had 1 uncommitted change that this worktree does not have/);
  await dirty.waitFor();
  await dirty.click();
  await main.getByRole('list', { name: 'Uncommitted paths left in the folder' }).getByText('draft.txt').waitFor();

  step = 'the session list groups it under its folder with its branch';
  const list = sidebar.getByRole('list', { name: 'Sessions' });
  // The project's heading (not a list item: the items are the sessions).
  await list.locator('.session-group').filter({ hasText: 'iso-project' }).waitFor();
  const row = list.getByRole('listitem').filter({ has: page.getByRole('button', { name: title, exact: true }) });
  await row.getByText('feature/notes').waitFor();

  step = 'the queued message goes once setup ended: the model edits notes.txt in the worktree';
  const log = main.getByRole('log', { name: 'Conversation' });
  await log.getByText('Edited notes.txt and added added.txt.').first().waitFor();
  check(readFileSync(join(project, 'notes.txt'), 'utf8') === 'one\ntwo\nthree\n', 'the folder changed before applying');
  await shot(page, 'isolated-2b-session.png');

  step = 'the folder changes notes.txt meanwhile';
  writeFileSync(join(project, 'notes.txt'), 'one\ntwo from the folder\nthree\n');

  step = 'Settings lists the copy with its disk use';
  await sidebar.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'Isolated copies' }).click();
  const copies = settings.getByRole('list', { name: 'Isolated copies' });
  const copy = copies.getByRole('listitem', { name: new RegExp(`^${title}: `) });
  await copy.waitFor();
  await copy.getByText('feature/notes', { exact: false }).waitFor();
  await shot(page, 'isolated-3-settings-copies.png');
  await copy.getByRole('button', { name: `Open ${title}` }).click();
  await settings.waitFor({ state: 'detached' });

  const apply = main.getByRole('button', { name: 'Apply to the folder…' });
  const preview = async (button = apply) => {
    await button.click();
    const d = page.getByRole('dialog', { name: 'Apply to the folder' });
    await d.getByText('1 file comes back').waitFor();
    await d.getByRole('list', { name: 'Files it brings back' }).getByText('added.txt').waitFor();
    const conflict = d.getByRole('list', { name: 'Conflicts' }).getByRole('listitem', { name: 'notes.txt' });
    await conflict.getByText('The folder changed it; the session changed it.').waitFor();
    await conflict.getByRole('region', { name: 'The folder’s change to notes.txt' }).getByText('two from the folder').first().waitFor();
    await conflict.getByRole('region', { name: 'The session’s change to notes.txt' }).getByText('two from the session').first().waitFor();
    return { d, conflict };
  };

  step = 'the apply preview in the dark theme';
  await page.evaluate(() => localStorage.setItem('foya.theme', 'dark'));
  await page.reload();
  await main.getByRole('heading', { level: 2, name: title }).waitFor();
  check((await page.evaluate(() => document.documentElement.dataset.theme)) === 'dark', 'the dark theme did not take');
  {
    const { d } = await preview();
    await shot(page, 'isolated-4-apply-preview-dark.png');
    await d.getByRole('button', { name: 'Cancel' }).click();
    await d.waitFor({ state: 'detached' });
  }
  await shot(page, 'isolated-5-session-dark.png');
  await page.evaluate(() => localStorage.setItem('foya.theme', 'light'));
  await page.reload();
  await main.getByRole('heading', { level: 2, name: title }).waitFor();

  step = 'Apply to the folder from the review panel: preview, take the session’s version, apply';
  await main.getByRole('button', { name: /^Review/ }).first().click();
  const review = main.getByRole('complementary', { name: 'Review changes' });
  await review.getByText('These changes are in the worktree on branch feature/notes, not in the folder, until you apply them.').waitFor();
  const { d, conflict } = await preview(review.getByRole('button', { name: 'Apply to the folder…' }));
  const applyButton = d.getByRole('button', { name: 'Apply 1 file' });
  await applyButton.waitFor();
  await shot(page, 'isolated-6-apply-preview.png');
  const take = conflict.getByRole('checkbox', { name: 'Take the session’s version' });
  await take.focus();
  await page.keyboard.press('Space');
  check(await take.isChecked(), 'Space did not tick Take the session’s version');
  await d.getByRole('button', { name: 'Apply 1 file and the session’s version of 1 conflict' }).click();
  await d.getByText('Applied 2 files').waitFor();
  await d.getByRole('list', { name: 'Files applied' }).getByText('notes.txt').waitFor();
  await shot(page, 'isolated-7-applied.png');
  await d.getByRole('button', { name: 'Close' }).click();
  await d.waitFor({ state: 'detached' });
  await main.getByRole('button', { name: /^Review/ }).first().click();
  check(readFileSync(join(project, 'notes.txt'), 'utf8') === 'one\ntwo from the session\nthree\n', 'notes.txt in the folder is not the session’s version');

  step = 'Discard, confirmed';
  await main.getByRole('button', { name: 'Discard…' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Discard the isolated copy?' });
  await confirm.waitFor();
  check(
    await confirm.getByRole('button', { name: 'Cancel' }).evaluate((el) => el === document.activeElement),
    'Cancel does not have the focus in the discard confirmation',
  );
  await confirm.getByRole('button', { name: 'Discard the copy' }).click();
  await confirm.waitFor({ state: 'detached' });
  await main.getByText(/^Worktree discarded .*: it cannot run again$/).waitFor();
  check(await apply.isDisabled(), 'Apply to the folder is not disabled after Discard');
  check(await main.getByRole('button', { name: 'Discard…' }).isDisabled(), 'Discard is not disabled after Discard');
  await main.getByText('This session’s isolated copy was discarded: it cannot run again.', { exact: false }).first().waitFor();
  await row.getByText('feature/notes (discarded)').waitFor();
  await shot(page, 'isolated-8-discarded.png');

  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  for (const p of browser.contexts().flatMap((c) => c.pages())) await p.screenshot({ path: join(env('FOYA_SHOTS'), 'isolated-failed.png') }).catch(() => {});
  console.error(`isolated.mjs: ${step}: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
