// Browser end-to-end: a whole conversation, as a person does it, controls
// found by role and name. Started by tests/e2e (Go,
// TestBrowserConversationJourney), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_PROJECT   the folder to create the session on (holds old.log)
//   FOYA_PROFILE   the provider profile the server has (the scripted model)
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_REQUESTS  a URL that answers what the model was sent so far
//   FOYA_TRASH     the serve process's home trash ($XDG_DATA_HOME/Trash)
//   FOYA_CREATED   notes.txt as the scripted write creates it
//   FOYA_EDITED    notes.txt after the scripted edit (two hunks)
//   FOYA_DENIAL    the message to deny the bash call with
//   FOYA_OLD_LOG   old.log's bytes, which the last run deletes
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Each step is checked on screen and on disk (or in the store).
// Exits 0 when every check holds, 1 with the reason otherwise.
import { api, check, env, launch, pageErrors, screenshots, timeout, transcriptSettled } from './lib.mjs';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const url = env('FOYA_URL');
const project = env('FOYA_PROJECT');
const profile = env('FOYA_PROFILE');
const shots = env('FOYA_SHOTS');
const requestsURL = env('FOYA_REQUESTS');
const trash = env('FOYA_TRASH');
const created = env('FOYA_CREATED');
const edited = env('FOYA_EDITED');
const denial = env('FOYA_DENIAL');
const oldLog = env('FOYA_OLD_LOG');
const { shot, saved } = screenshots(shots);
// This run's screenshots only: the last run's are removed first.
for (const f of readdirSync(shots)) if (f.startsWith('journey-') && f.endsWith('.png')) rmSync(join(shots, f));
const notes = join(project, 'notes.txt');

const read = (p) => (existsSync(p) ? readFileSync(p, 'utf8') : null);

// onDisk waits until path holds want (null: absent): an answer given on the
// page reaches the disk through the kernel a moment later.
async function onDisk(path, want, what) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const got = read(path);
    if (got === want) return;
    if (Date.now() > deadline) throw new Error(`${what}: ${path} holds ${JSON.stringify(got)}; want ${JSON.stringify(want)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// armed waits until an approval request takes answers (it ignores keys and
// clicks for its first 500 ms).
const armed = (dialog) => dialog.locator('xpath=self::*[@data-armed="true"]').waitFor();

const browser = await launch();
let failed = false;
let step = 'start';
let page = null;
// inView says whether an element of the conversation is inside its
// scroller's visible box, within a second (the view scrolls a frame after
// a row grows).
async function inView(loc) {
  for (let i = 0; i < 10; i++) {
    const ok = await loc.evaluate((el) => {
      const s = el.closest('[data-virtuoso-scroller]');
      const a = el.getBoundingClientRect();
      const b = s.getBoundingClientRect();
      return a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.setDefaultTimeout(timeout);
  const errors = pageErrors(page);

  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);
  const sidebar = page.getByRole('complementary', { name: 'Sessions sidebar' });
  const main = page.getByRole('main');
  // Approval requests show inline, at their calls in the conversation.
  const log = page.getByRole('log', { name: 'Conversation' });
  const composer = main.getByRole('form', { name: 'Send a message' });
  const message = composer.getByRole('textbox', { name: 'Message' });

  // 1. A session on the temp folder, in Manual.
  step = 'create a session in Manual';
  await sidebar.getByRole('button', { name: 'New session' }).click();
  const create = page.getByRole('dialog', { name: 'New session' });
  await create.waitFor();
  check((await create.getByRole('combobox', { name: 'Provider profile' }).inputValue()) === profile, 'the scripted profile is not offered');
  check(await create.getByRole('radio', { name: /^Manual/ }).isChecked(), 'Manual is not the chosen mode');
  await create.getByRole('combobox', { name: 'Folder' }).fill(project);
  await create.getByRole('textbox', { name: 'Title (optional)' }).fill('Conversation journey');
  await create.getByRole('button', { name: 'Create session' }).click();
  await create.waitFor({ state: 'detached' });
  await main.getByRole('heading', { level: 2, name: 'Conversation journey' }).waitFor();
  await main.getByRole('button', { name: 'Approval mode: Manual' }).waitFor();
  const [sess] = await api(page, 'Sessions');
  check(sess.workdir === project && sess.approvalMode === 'manual', `stored session ${JSON.stringify(sess)}; want ${project} in manual`);
  await log.getByText('No messages yet.').waitFor();
  await shot(page, 'journey-01-empty-conversation.png');

  // 2. A prompt from the composer: Enter sends.
  step = 'send a prompt';
  await message.fill('Write notes.txt, tidy two rows, then run the tests.');
  await message.press('Enter');

  // 3. The write waits; its diff is in its request, at the write's card; allow once.
  step = 'approve the write after its diff';
  const write = log.getByRole('article', { name: /^write/ }).getByRole('region', { name: 'Write a file?' });
  await write.waitFor();
  await write.getByRole('table', { name: /^Diff of .*notes\.txt$/ }).getByText('row 19', { exact: true }).waitFor();
  check(read(notes) === null, 'notes.txt exists before the write was approved');
  await shot(page, 'journey-02-approve-write.png');
  await armed(write);
  await write.getByRole('button', { name: 'Allow once' }).click();
  await onDisk(notes, created, 'after the approved write');

  // 5. The edit waits, with its two hunks in its request; allow once.
  step = 'approve the edit';
  const edit = log.getByRole('region', { name: 'Edit a file?' });
  await edit.waitFor();
  await edit.getByText('ROW 19', { exact: true }).waitFor();
  await shot(page, 'journey-03-approve-edit.png');
  await armed(edit);
  await edit.getByRole('button', { name: 'Allow once' }).click();
  await onDisk(notes, edited, 'after the approved edit');

  // 6. The bash waits: deny it with a message, which reaches the model.
  step = 'deny the bash with a message';
  const bash = log.getByRole('region', { name: 'Run a command?' });
  await bash.waitFor();
  check((await bash.getByLabel('Command', { exact: true }).textContent()).includes('go test ./...'), 'the request does not show the command');
  // A reload while it waits: the same request is asked again.
  await page.reload();
  await bash.waitFor();
  await transcriptSettled(log);
  check((await bash.getByLabel('Command', { exact: true }).textContent()).includes('go test ./...'), 'after the reload the request does not show the command');
  await armed(bash);
  await bash.getByRole('textbox', { name: 'Message to the model if you deny (optional)' }).fill(denial);
  await shot(page, 'journey-04-deny-bash.png');
  await bash.getByRole('button', { name: 'Deny' }).click();
  await bash.waitFor({ state: 'detached' });
  await log.getByText('Understood: I did not run the tests.').waitFor();
  await log.getByText(`Denied by you: “${denial}”.`).waitFor();

  // 4. The run has ended. Back at its start (the transcript draws only the
  // rows near the view): the prompt, the model's first text, and the
  // write's file-change card: the path and counts, the diff on demand, no
  // raw arguments.
  step = 'the file-change card';
  await log.locator('[data-virtuoso-scroller]').evaluate((el) => el.scrollTo(0, 0));
  await log.getByRole('region', { name: 'Your message' }).getByText('Write notes.txt, tidy two rows, then run the tests.').waitFor();
  await log.getByText('I will write the notes first.').waitFor();
  const writeCard = log.getByRole('article', { name: /^write/ });
  await writeCard.getByLabel('20 lines added, 0 removed').waitFor();
  check(!(await writeCard.textContent()).includes('"content"'), 'the write card shows its raw arguments');
  await writeCard.getByRole('button', { name: 'Show diff' }).click();
  await writeCard.getByLabel(/^Diff of notes\.txt$/).getByText(/^\+row 20$/m).waitFor();
  await shot(page, 'journey-05-file-change-cards.png');
  const jump = log.getByRole('button', { name: 'Jump to latest' });
  if ((await jump.count()) > 0) await jump.click();
  const sent = await (await fetch(requestsURL)).json();
  check(sent.length === 4, `the model was asked ${sent.length} times in the first run; want 4`);
  const toolMsg = sent[3].filter((m) => m.Role === 'tool').pop();
  check(toolMsg && toolMsg.Content.includes(denial), `the model's next tool message is ${JSON.stringify(toolMsg)}; want it to hold the denial`);

  // 7. Auto in settings; session.mode shows in the conversation.
  step = 'switch to Auto';
  await main.getByRole('button', { name: 'Session settings' }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'Approval mode' }).click();
  await settings.getByRole('radiogroup', { name: 'Approval mode of this session' }).getByRole('radio', { name: 'Auto' }).click();
  await settings.getByRole('radiogroup', { name: 'Approval mode of this session' }).getByRole('radio', { name: 'Auto', checked: true }).waitFor();
  await shot(page, 'journey-06-settings-auto.png');
  await settings.getByRole('button', { name: 'Close settings' }).click();
  await settings.waitFor({ state: 'detached' });
  await main.getByRole('button', { name: 'Approval mode: Auto' }).waitFor();
  await log.getByText('Approval mode switched from Manual to Auto.').waitFor();
  check((await api(page, 'Session', sess.id)).approvalMode === 'auto', 'the store does not hold Auto');

  // 8. A command with a live tail: its first line shows while it runs.
  step = 'a live tail';
  await message.fill('Build it.');
  await message.press('Enter');
  const tail = log.getByRole('article', { name: /^bash .*tick-one/, includeHidden: true }).getByLabel(/^Live output of bash/);
  await tail.getByText('tick-one').waitFor();
  await shot(page, 'journey-07-live-tail.png');
  writeFileSync(join(project, 'release.flag'), '');
  await log.getByRole('article', { name: /^bash .*tick-one/, includeHidden: true }).getByText('tick-two').waitFor();

  // 9. A long one: reload in the middle, find it running with its tail, stop it.
  step = 'reload mid-run';
  const long = () => log.getByRole('article', { name: /^bash .*long-start/, includeHidden: true });
  await long().getByLabel(/^Live output of bash/).getByText('long-start').waitFor();
  await page.reload();
  await main.getByRole('heading', { level: 2, name: 'Conversation journey' }).waitFor();
  await transcriptSettled(log); // before the text queries below: until then each row is in the page twice
  await long().getByLabel(/^Live output of bash/).getByText('long-start').waitFor();
  await log.getByText('Approval mode switched from Manual to Auto.').waitFor();
  await composer.getByRole('button', { name: 'Stop' }).waitFor();
  await shot(page, 'journey-08-reloaded-mid-run.png');
  step = 'cancel the long command';
  await composer.getByRole('button', { name: 'Stop' }).click();
  await long().getByText('cancelled', { exact: true }).waitFor();
  // The view follows: the turn's end is in view without scrolling.
  await log.getByText('Stopped by you.').last().waitFor();
  check(await inView(log.getByText('Stopped by you.').last()), 'the turn\'s end is not in view after the stop: the conversation stopped following');
  check((await main.getByRole('button', { name: 'Jump to latest' }).count()) === 0, '"Jump to latest" shows after the stop: the conversation stopped following');
  const runs = await api(page, 'Runs', sess.id);
  check(runs.length === 2 && runs.some((r) => r.status === 'cancelled'), `runs ${JSON.stringify(runs.map((r) => r.status))}; want the second cancelled`);
  await shot(page, 'journey-09-cancelled.png');

  // 9b. The background command the run started: its tail in the panel,
  // live, and the Stop button.
  step = 'a background command';
  await main.getByRole('button', { name: 'Background' }).click();
  const bg = main.getByRole('region', { name: 'Background commands' });
  const bgItem = bg.getByRole('listitem').filter({ hasText: 'echo bg-one' });
  // A running command's output is open at first; open it if not.
  const toggle = bgItem.getByRole('button', { name: /^(Show|Hide) output of / });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await bgItem.getByRole('log', { name: /^Output of / }).getByText(/bg-one/).waitFor();
  writeFileSync(join(project, 'bg.flag'), '');
  await bgItem.getByRole('log', { name: /^Output of / }).getByText(/bg-two/).waitFor();
  await shot(page, 'journey-10-background-tail.png');
  await bgItem.getByRole('button', { name: /^Stop / }).click();
  await bgItem.getByRole('button', { name: /^Stop / }).waitFor({ state: 'detached' });
  const bgs = await api(page, 'BackgroundCommands', sess.id);
  check(bgs.length === 1 && !bgs[0].running, `background commands ${JSON.stringify(bgs)}; want the one stopped`);
  await shot(page, 'journey-11-background-stopped.png');
  await bg.getByRole('button', { name: 'Close background commands' }).click();

  // 10. The review panel: revert one hunk of the edit, check the bytes.
  step = 'revert one hunk';
  await main.getByRole('button', { name: 'Review' }).click();
  const review = main.getByRole('complementary', { name: 'Review changes' });
  const editRow = review.getByRole('listitem', { name: /^notes\.txt, edit/ });
  await editRow.getByRole('button', { name: 'Show diff' }).click();
  await shot(page, 'journey-12-review.png');
  // One hunk reverts at once (no preview), its Undo in the notice.
  await editRow.getByRole('button', { name: 'Revert hunk 1' }).click();
  const oneHunk = edited.replace('ROW 2\n', 'row 2\n');
  await onDisk(notes, oneHunk, 'after reverting hunk 1');
  await review.getByRole('status').getByText(/Hunk 1 of the edit of .* is undone in notes\.txt\./).waitFor();
  await editRow.getByRole('button', { name: 'Undo hunk 1' }).waitFor();
  check((await page.getByRole('dialog').count()) === 0, 'a dialog opened for a hunk revert');
  await shot(page, 'journey-13-revert-hunk.png');

  // 11. The whole turn: notes.txt was created by it, so it goes. The hunk
  // revert made since is Foya's own: the turn's revert starts from what it
  // left, previewed like every revert of several changes.
  step = 'revert the whole turn';
  // The turn that wrote notes.txt (the later turn's shell commands made
  // changes of their own, captured and listed above it).
  const notesTurn = review.getByRole('listitem', { name: /^Turn: Write notes\.txt/ });
  await notesTurn.getByRole('button', { name: 'Revert turn' }).click();
  const turnDialog = page.getByRole('dialog', { name: 'Revert preview' });
  await turnDialog.waitFor();
  await turnDialog.getByRole('list', { name: 'What the revert does' }).waitFor();
  await shot(page, 'journey-14-revert-turn-preview.png');
  await turnDialog.getByRole('button', { name: 'Revert', exact: true }).click();
  await turnDialog.waitFor({ state: 'detached' });
  await review.getByRole('status').getByText(/notes\.txt is in the trash/).waitFor();
  await onDisk(notes, null, 'after reverting the turn that created notes.txt');
  await shot(page, 'journey-15-turn-reverted.png');

  // 12. Undo the revert: the bytes before it come back.
  step = 'undo the revert';
  await review.getByRole('status').getByRole('button', { name: 'Undo', exact: true }).click();
  const undo = page.getByRole('dialog', { name: 'Undo' });
  await undo.waitFor();
  await undo.getByRole('button', { name: 'Undo', exact: true }).click();
  await undo.waitFor({ state: 'detached' });
  await onDisk(notes, oneHunk, 'after undoing the turn revert');
  await shot(page, 'journey-16-revert-undone.png');

  // 13. An edit outside Foya, right after the undo: the review panel marks
  // the file live (the watcher compares it with what the revert left), and
  // a revert meets the conflict step.
  step = 'changed outside Foya';
  const mine = oneHunk + 'my own line\n';
  writeFileSync(notes, mine);
  await review.getByRole('listitem', { name: /^notes\.txt, / }).getByText('changed outside Foya').first().waitFor();
  await shot(page, 'journey-16b-changed-outside.png');
  step = 'the conflict step';
  await notesTurn.getByRole('button', { name: 'Revert turn' }).click();
  const conflict = page.getByRole('dialog', { name: 'Files changed since' });
  await conflict.waitFor();
  await conflict.getByRole('list', { name: 'Conflicts' }).getByText('my own line').first().waitFor();
  await shot(page, 'journey-17-conflict.png');
  await conflict.getByRole('button', { name: 'Cancel' }).click();
  await conflict.waitFor({ state: 'detached' });
  check(read(notes) === mine, `notes.txt after the cancelled conflict holds ${JSON.stringify(read(notes))}; want the outside edit kept`);
  await review.getByRole('button', { name: 'Close review' }).click();

  // 14. A delete: to the trash, with the card saying where.
  step = 'delete to the trash';
  check(read(join(project, 'old.log')) === oldLog, 'old.log is not there before the delete');
  await message.fill('Remove old.log.');
  await message.press('Enter');
  await log.getByText('Deleted old.log.').waitFor();
  const delCard = log.getByRole('article', { name: /^delete/, includeHidden: true });
  await delCard.getByText(/^Moved to the trash:/).waitFor();
  const trashed = join(trash, 'files', 'old.log');
  check((await delCard.textContent()).includes(trashed), `the delete card does not name ${trashed}: ${await delCard.textContent()}`);
  await onDisk(join(project, 'old.log'), null, 'after the delete');
  await onDisk(trashed, oldLog, 'in the trash');
  await shot(page, 'journey-18-deleted-to-trash.png');

  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
  console.log('ok: Manual session, write/edit approved after their diffs, bash denied with a message the model got, Auto with session.mode, a live tail, a reload mid-run, a cancel, hunk and turn reverts with undo, the conflict step, a delete to the trash');
} catch (err) {
  failed = true;
  console.error(`FAIL at "${step}": ${err.message}`);
  if (page !== null) await shot(page, 'journey-failed.png').catch(() => undefined);
} finally {
  console.log(`screenshots:\n${saved.join('\n')}`);
  await browser.close();
}
process.exit(failed ? 1 : 0);
