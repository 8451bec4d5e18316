// Browser end-to-end: the sessions journey through the UI, as a person
// does it, controls found by role and name. Started by tests/e2e (Go),
// which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_PROJECT   an empty folder to create the session on
//   FOYA_PROFILE   the provider profile the server has (the scripted model)
//   FOYA_STORED    a session with one completed run ("Stored history")
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Each step is checked on screen and in the store (the API's answers).
// Exits 0 when every check holds, 1 with the reason otherwise.
import { api, check, env, launch, newPage, screenshots } from './lib.mjs';
import { join } from 'node:path';

const url = env('FOYA_URL');
const project = env('FOYA_PROJECT');
const profile = env('FOYA_PROFILE');
const storedId = env('FOYA_STORED');
const shots = env('FOYA_SHOTS');
const { shot, saved } = screenshots(shots);

const browser = await launch();
let failed = false;
try {
  const { page, errors } = await newPage(browser);

  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);
  const sidebar = page.getByRole('complementary', { name: 'Sessions sidebar' });
  const list = sidebar.getByRole('list', { name: 'Sessions' });
  const main = page.getByRole('main');
  await main.getByRole('heading', { level: 2, name: 'No session open' }).waitFor();
  await shot(page, 'sessions-list.png');

  // Open the session with a stored run: its history comes back from the store.
  await list.getByRole('button', { name: 'Stored history', exact: true }).click();
  await main.getByRole('heading', { level: 2, name: 'Stored history' }).waitFor();
  await main.getByRole('button', { name: 'Approval mode: Auto' }).waitFor();
  await main.getByText('Say hello from the store').first().waitFor();
  await main.getByText('Hello from the stored run.').first().waitFor();
  check(page.url().endsWith(`#session=${storedId}`), `the address does not name the open session: ${page.url()}`);
  await shot(page, 'session-history.png');

  // Create a session on the folder, in Manual, through the dialog's path field.
  await sidebar.getByRole('button', { name: 'New session' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.waitFor();
  const provider = dialog.getByRole('combobox', { name: 'Provider profile' });
  check((await provider.inputValue()) === profile, `provider profile offered: ${await provider.inputValue()}; want ${profile}`);
  check(await dialog.getByRole('radio', { name: /^Manual/ }).isChecked(), 'Manual is not the chosen mode');
  // The path field completes from the kernel: the project's parent lists it.
  const folder = dialog.getByRole('combobox', { name: 'Folder' });
  const parent = project.slice(0, project.lastIndexOf('/') + 1);
  await folder.fill(parent);
  await page.waitForFunction(
    ({ project }) => {
      const input = [...document.querySelectorAll('input[list]')][0];
      const list = input && document.getElementById(input.getAttribute('list'));
      return list && [...list.querySelectorAll('option')].some((o) => o.value === project);
    },
    { project },
  );
  await folder.fill(project);
  await dialog.getByRole('textbox', { name: 'Title (optional)' }).fill('e2e journey');
  await shot(page, 'sessions-create.png');
  await dialog.getByRole('button', { name: 'Create session' }).click();
  await dialog.waitFor({ state: 'detached' });

  await main.getByRole('heading', { level: 2, name: 'e2e journey' }).waitFor();
  await main.getByRole('button', { name: 'Approval mode: Manual' }).waitFor();
  await list.getByRole('button', { name: 'e2e journey', exact: true }).waitFor();
  let stored = await api(page, 'Sessions');
  check(stored.length === 2, `the store has ${stored.length} sessions; want 2`);
  const s = stored.find((x) => x.id !== storedId);
  check(s.workdir === project && s.approvalMode === 'manual' && s.title === 'e2e journey' && s.provider === profile,
    `stored session ${JSON.stringify(s)}; want ${project}, manual, "e2e journey", ${profile}`);
  check(page.url().endsWith(`#session=${s.id}`), `the address does not name the open session: ${page.url()}`);
  await shot(page, 'session-open.png');

  // Rename it in place: Enter saves.
  await list.getByRole('button', { name: 'e2e journey', exact: true }).hover();
  await list.getByRole('button', { name: 'Rename e2e journey' }).click();
  const title = list.getByRole('textbox', { name: 'Session title' });
  await title.fill('Renamed journey');
  await title.press('Enter');
  await list.getByRole('button', { name: 'Renamed journey', exact: true }).waitFor();
  await main.getByRole('heading', { level: 2, name: 'Renamed journey' }).waitFor();
  stored = await api(page, 'Session', s.id);
  check(stored.title === 'Renamed journey', `stored title ${JSON.stringify(stored.title)}; want "Renamed journey"`);
  await shot(page, 'session-renamed.png');

  // Reload: the session is listed, and open again.
  await page.reload();
  await list.getByRole('button', { name: 'Renamed journey', exact: true }).waitFor();
  await main.getByRole('heading', { level: 2, name: 'Renamed journey' }).waitFor();

  // The keyboard: Ctrl+K to the search, arrow down to the session.
  await page.keyboard.press('Control+k');
  check(await sidebar.getByRole('searchbox', { name: 'Search sessions' }).evaluate((el) => el === document.activeElement),
    'Ctrl+K did not focus the search');
  await page.keyboard.type('renamed');
  await page.keyboard.press('ArrowDown');
  check(await list.getByRole('button', { name: 'Renamed journey', exact: true }).evaluate((el) => el === document.activeElement),
    'arrow down from the search did not reach the session');
  await page.keyboard.press('Escape');

  // The dark theme, chosen in settings, kept across a reload.
  await sidebar.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'Theme' }).click();
  await settings.getByRole('radio', { name: 'Dark' }).check();
  await page.reload();
  check((await page.evaluate(() => document.documentElement.dataset.theme)) === 'dark', 'the dark theme did not hold across the reload');
  await main.getByRole('heading', { level: 2, name: 'Renamed journey' }).waitFor();
  await shot(page, 'session-dark.png');
  await page.evaluate(() => localStorage.removeItem('foya.theme'));

  // Delete it, after the confirmation that says what goes with it.
  await list.getByRole('button', { name: 'Renamed journey', exact: true }).hover();
  await list.getByRole('button', { name: 'Delete Renamed journey' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete “Renamed journey”?' });
  await confirm.getByText('It has no background commands running.').waitFor();
  check(await confirm.getByRole('button', { name: 'Cancel' }).evaluate((el) => el === document.activeElement), 'focus is not on Cancel');
  await shot(page, 'session-delete.png');
  await confirm.getByRole('button', { name: 'Delete session' }).click();
  await confirm.waitFor({ state: 'detached' });
  await list.getByRole('button', { name: 'Renamed journey', exact: true }).waitFor({ state: 'detached' });
  await main.getByRole('heading', { level: 2, name: 'No session open' }).waitFor();
  check((await list.getByRole('button', { name: 'Stored history', exact: true }).count()) === 1, 'the other session went too');
  // The focus the deleted row had goes to the session left (the one above
  // it or below it), never the page's body.
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Stored history', null, { timeout: 5000 }).catch(async () => {
    const at = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120) ?? 'nothing');
    throw new Error(`after the delete the focus is on ${at}; want the session "Stored history"`);
  });
  stored = await api(page, 'Sessions');
  check(stored.length === 1 && stored[0].id === storedId, `the store has ${JSON.stringify(stored.map((x) => x.title))} after the delete; want only "Stored history"`);
  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
  console.log('ok: opened a stored run, created in Manual through the path field, renamed, found after a reload, deleted after the confirmation');
} catch (err) {
  failed = true;
  console.error(`FAIL: ${err.message}`);
} finally {
  console.log(`screenshots:\n${saved.join('\n')}`);
  await browser.close();
}
process.exit(failed ? 1 : 0);
