// Browser end-to-end: a session's title from its first prompt, then the
// model's title arriving live (session.title), and its
// approval mode switched from the header's mode menu, as a person does it,
// controls found by role and name, the store checked after each step.
// Started by tests/e2e (Go, TestBrowserHeaderModeMenuAndTitle), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_SESSION   a session made without a title, in Manual, never run
//   FOYA_PROMPT    the first prompt to send
//   FOYA_TITLE     the title the prompt makes
//   FOYA_MODEL_TITLE the title the model proposes after the first run
//   FOYA_RELEASE   a URL to GET to let the model's title answer
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { api, check, env, launch, newPage, screenshots, timeout } from './lib.mjs';

const url = env('FOYA_URL');
const id = env('FOYA_SESSION');
const prompt = env('FOYA_PROMPT');
const title = env('FOYA_TITLE');
const modelTitle = env('FOYA_MODEL_TITLE');
const release = env('FOYA_RELEASE');
const { shot } = screenshots(env('FOYA_SHOTS'));

// stored waits until the store's session satisfies ok: a switch reaches
// the kernel a moment after the click.
async function stored(page, ok, what) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const s = await api(page, 'Session', id);
    if (ok(s)) return s;
    if (Date.now() > deadline) throw new Error(`${what}: the store holds ${JSON.stringify(s)}`);
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
  const sidebar = page.getByRole('complementary', { name: 'Sessions sidebar' });
  const list = sidebar.getByRole('list', { name: 'Sessions' });
  const main = page.getByRole('main');
  const log = page.getByRole('log', { name: 'Conversation', includeHidden: true });

  step = 'open the untitled session';
  await list.getByRole('button', { name: 'New session', exact: true }).click();
  await main.getByRole('heading', { level: 2, name: 'New session' }).waitFor();

  step = 'the first prompt names the session';
  await main.getByRole('form', { name: 'Send a message' }).getByRole('textbox', { name: 'Message' }).fill(prompt);
  await page.keyboard.press('Enter');
  await main.getByRole('heading', { level: 2, name: title, exact: true }).waitFor();
  await list.getByRole('button', { name: title, exact: true }).waitFor();
  await stored(page, (s) => s.title === title && !s.titleByUser, 'the title from the first prompt');

  step = "the model's title replaces it, live";
  check((await fetch(release)).ok, 'release the title request');
  await main.getByRole('heading', { level: 2, name: modelTitle, exact: true }).waitFor();
  await list.getByRole('button', { name: modelTitle, exact: true }).waitFor();
  await stored(page, (s) => s.title === modelTitle && !s.titleByUser, "the model's title");

  step = 'Manual to Auto from the header';
  const pill = (name) => main.getByRole('button', { name: `Approval mode: ${name}` });
  await pill('Manual').click();
  const menu = page.getByRole('menu');
  await menu.getByRole('menuitemradio', { name: /^Manual/, checked: true }).waitFor();
  await menu.getByRole('menuitemradio', { name: /^Full Access.*without the sandbox/ }).waitFor();
  await shot(page, 'modemenu-open.png');
  await menu.getByRole('menuitemradio', { name: /^Auto/ }).click();
  await menu.waitFor({ state: 'detached' });
  await pill('Auto').waitFor();
  await stored(page, (s) => s.approvalMode === 'auto', 'after choosing Auto');
  await log.getByText('Approval mode switched from Manual to Auto.').waitFor();
  check(await pill('Auto').evaluate((el) => el === document.activeElement), 'focus did not come back to the mode pill after the menu');

  step = 'Auto to Full Access through the confirmation';
  await page.keyboard.press('Control+Shift+M');
  await menu.getByRole('menuitemradio', { name: /^Full Access/ }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Switch this session to Full Access?' });
  await dialog.waitFor();
  check(/without the sandbox/.test(await dialog.textContent()), 'the confirmation does not say what Full Access allows');
  await shot(page, 'modemenu-confirm.png');
  check((await api(page, 'Session', id)).approvalMode === 'auto', 'Full Access applied before it was confirmed');
  await dialog.getByRole('button', { name: 'Switch to Full Access' }).click();
  await dialog.waitFor({ state: 'detached' });
  await pill('Full Access').waitFor();
  await stored(page, (s) => s.approvalMode === 'full_access', 'after confirming Full Access');
  await log.getByText('Approval mode switched from Auto to Full Access.').waitFor();
  check(await pill('Full Access').evaluate((el) => el === document.activeElement), 'focus did not come back to the mode pill after the dialog');

  check(errors.length === 0, `page errors: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`step "${step}": ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
