// Browser end-to-end: the composer's model picker and "Send now", as a
// person does them, controls found by role and name. Started by tests/e2e
// (Go, TestBrowserModelPickerAndSendNow), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_TITLE     the session's title
//   FOYA_RELEASE   an address to fetch once "Send now" was pressed: the
//                  scripted model then lets its held answer go
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, openSession, screenshots, transcriptSettled } from './lib.mjs';

const url = env('FOYA_URL');
const title = env('FOYA_TITLE');
const release = env('FOYA_RELEASE');
const { shot } = screenshots(env('FOYA_SHOTS'));

const browser = await launch();
let step = 'start';
let failed = false;
try {
  const { page, errors, main, item } = await openSession(browser, url, title);
  const log = page.getByRole('log', { name: 'Conversation', includeHidden: true });
  const open = () => item.click();
  const form = main.getByRole('form', { name: 'Send a message' });
  const box = form.getByRole('textbox', { name: 'Message' });

  step = 'open the model picker: it names the session\'s model';
  const picker = form.getByRole('button', { name: /^Model: / });
  await form.getByRole('button', { name: 'Model: m (scripted)' }).waitFor();
  await picker.click();
  const profiles = form.getByRole('listbox', { name: 'Provider profiles' });
  await profiles.getByRole('option', { name: 'second' }).waitFor();

  step = 'pick the profile "second" by typing and Enter, then its model big-model';
  await page.keyboard.type('sec');
  await page.keyboard.press('Enter');
  const models = form.getByRole('listbox', { name: 'Models of second' });
  await models.getByRole('option', { name: 'big-model', exact: true }).waitFor();
  await shot(page, 'picker-models.png');
  await page.keyboard.type('big');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  await models.waitFor({ state: 'detached' });
  await form.getByRole('button', { name: 'Model: big-model (second)' }).waitFor();
  await log.getByText('Model: big-model (second), from the next run on.').waitFor();

  step = 'Escape closes the picker and changes nothing';
  await picker.click();
  await profiles.waitFor();
  await page.keyboard.press('Escape');
  await profiles.waitFor({ state: 'detached' });
  await form.getByRole('button', { name: 'Model: big-model (second)' }).waitFor();

  step = 'send a message; the run goes (the model holds its answer)';
  await box.click();
  await box.pressSequentially('indent the file');
  await page.keyboard.press('Enter');
  await form.getByRole('button', { name: 'Stop' }).waitFor();

  step = 'queue a message and press its "Send now"';
  await box.pressSequentially('use tabs');
  await page.keyboard.press('Enter');
  const queued = form.getByRole('list', { name: 'Queued messages' });
  await queued.getByText('Queued: use tabs').waitFor();
  const now = queued.getByRole('button', { name: 'Send now' });
  check((await now.getAttribute('aria-keyshortcuts')) === 'Control+Shift+Enter', 'Send now names no shortcut');
  check((await now.textContent()).includes('Ctrl+Shift+Enter'), 'Send now shows no shortcut');
  const steered = page.waitForRequest((r) => r.url().includes('/Steer'));
  await now.click();
  await steered;
  await shot(page, 'picker-send-now.png');

  step = 'the run goes on with the message: it leaves the queue and shows in the conversation once';
  const r = await fetch(release);
  check(r.ok, `release the held answer: ${r.status}`);
  await log.getByText('Used tabs.').waitFor();
  await queued.waitFor({ state: 'detached' });
  check((await log.getByText('use tabs', { exact: true }).count()) === 1, 'the message is not in the conversation once');

  step = 'after a reload, the model choice and the message are still shown';
  await page.reload();
  await open();
  await transcriptSettled(log); // until then a row's text is in the page twice
  await log.getByText('Model: big-model (second), from the next run on.').waitFor();
  await log.getByText('use tabs', { exact: true }).waitFor();
  await form.getByRole('button', { name: 'Model: big-model (second)' }).waitFor();

  check(errors.length === 0, `page errors: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`step "${step}": ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
