// Browser end-to-end: the composer's @-mention of a file and a message
// queued while a run goes, as a person does it, controls found by role
// and name. Started by tests/e2e (Go, TestBrowserComposerMentionAndQueue),
// which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_TITLE     the session's title (its folder holds notes.txt)
//   FOYA_RELEASE   an address to fetch once the queued message shows: the
//                  scripted model then lets its held answer go
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, openSession, screenshots } from './lib.mjs';

const url = env('FOYA_URL');
const title = env('FOYA_TITLE');
const release = env('FOYA_RELEASE');
const { shot } = screenshots(env('FOYA_SHOTS'));

const browser = await launch();
let step = 'start';
let failed = false;
try {
  const { page, errors, main } = await openSession(browser, url, title);
  const log = page.getByRole('log', { name: 'Conversation', includeHidden: true });
  const form = main.getByRole('form', { name: 'Send a message' });
  const box = form.getByRole('textbox', { name: 'Message' });

  step = 'type "@no" and pick notes.txt with the keys';
  await box.click();
  await box.pressSequentially('What does @no');
  const list = form.getByRole('listbox', { name: 'Files to mention' });
  await list.getByRole('option', { name: 'notes.txt', exact: true }).waitFor();
  check((await list.getByRole('option').first().textContent()) === 'notes.txt', 'notes.txt is not the first match of "no"');
  await shot(page, 'composer-mentions.png');
  await page.keyboard.press('Enter');
  await list.waitFor({ state: 'detached' });
  check((await box.inputValue()) === 'What does @notes.txt ', `the box holds ${JSON.stringify(await box.inputValue())} after the pick`);
  await form.getByRole('list', { name: 'Mentioned files' }).getByText('@notes.txt').waitFor();

  step = 'send it; the run goes (the model holds its answer)';
  await box.pressSequentially('say?');
  await page.keyboard.press('Enter');
  await form.getByRole('button', { name: 'Stop' }).waitFor();

  step = 'queue a second message while the run goes';
  await box.pressSequentially('and then say it twice');
  await page.keyboard.press('Enter');
  const queued = form.getByRole('list', { name: 'Queued messages' });
  await queued.getByText('Queued: and then say it twice').waitFor();
  check((await box.inputValue()) === '', 'the box was not emptied when the message was queued');
  await shot(page, 'composer-queued.png');

  step = 'the run completes and the queued message is sent';
  const r = await fetch(release);
  check(r.ok, `release the held answer: ${r.status}`);
  await log.getByText('Read notes.txt.').waitFor();
  await log.getByText('Second done.').waitFor();
  await queued.waitFor({ state: 'detached' });
  await log.getByText('and then say it twice').waitFor();
  // The last request's prompt tokens against the model's window: the
  // scripted server says none, so the window is the guess, said to be one.
  const meter = form.getByText('12k / ~8.2k', { exact: true });
  await meter.waitFor();
  const tip = (await meter.getAttribute('title')) ?? '';
  check(tip.includes('8,192 tokens (a guess: the server does not say') && tip.includes('12,300 in all'), `the meter's tooltip: ${tip}`);

  check(errors.length === 0, `page errors: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`step "${step}": ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
