// Browser end-to-end: the first run, as a person meets it on a Foya with no
// provider profile and no session. Started by tests/e2e (Go), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_CASE      "found" (a scripted server listens on a probed port),
//                  "none" (nothing answers on the probed ports, no key) or
//                  "other" (nothing found; the person types in a server)
//   FOYA_PORT      (found) the scripted server's port
//   FOYA_MODEL     (found, other) the model to choose among those it lists
//   FOYA_PROJECT   (found, other) an empty folder to create the session on
//   FOYA_BASE      (other) the scripted server's base URL
//   FOYA_KEY       (other) the key it wants
//   FOYA_DEAD      (other) a base URL nothing answers at
//   FOYA_ANSWER    (other) what the scripted model answers the first prompt
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Each step is checked on screen and in the store (the API's answers).
// Exits 0 when every check holds, 1 with the reason otherwise.
import { api, check, env, launch, newPage, screenshots } from './lib.mjs';
import { join } from 'node:path';

const url = env('FOYA_URL');
const which = env('FOYA_CASE');
const shots = env('FOYA_SHOTS');
const { shot, saved } = screenshots(shots);

/** described is the text that describes a field (aria-describedby): its error, then its hint. */
const described = (loc) =>
  loc.evaluate((el) =>
    (el.getAttribute('aria-describedby') || '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );

/**
 * otherServer: nothing found, so the person picks "Other (OpenAI-compatible)",
 * types a dead address, then the scripted server's without and with its key,
 * tests each, picks the model from the list, saves, creates the session in
 * the dialog that opens, sends a prompt and reads the scripted answer.
 */
async function otherServer(page, main) {
  const base = env('FOYA_BASE');
  const key = env('FOYA_KEY');
  const dead = env('FOYA_DEAD');
  const model = env('FOYA_MODEL');
  const project = env('FOYA_PROJECT');
  const answer = env('FOYA_ANSWER');
  await main.getByText('No model server found').waitFor();
  const form = main.getByRole('form', { name: 'Save a provider profile' });
  await form.getByRole('radio', { name: 'Other (OpenAI-compatible)' }).check();
  const url = form.getByRole('textbox', { name: 'Base URL' });
  const test = form.getByRole('button', { name: 'Test connection' });

  // A dead server: said at the base URL, the detail folded below.
  await url.fill(dead);
  await test.click();
  await form.getByText('Not reachable. See the base URL above.').waitFor();
  check((await url.getAttribute('aria-invalid')) === 'true', 'the base URL is not marked invalid');
  check((await described(url)).includes('the connection was refused'), `base URL described as ${await described(url)}`);
  check(!(await form.getByText('Technical detail').locator('xpath=..').evaluate((d) => d.open)), 'the detail is not folded');
  await shot(page, 'firstrun-other-dead.png');

  // The server, without its key: said at the key.
  await url.fill(base);
  await test.click();
  const keyField = form.getByLabel('API key (if the server wants one)');
  await form.getByText('Key refused. See the API key above.').waitFor();
  check((await keyField.getAttribute('aria-invalid')) === 'true', 'the key field is not marked invalid');
  check((await url.getAttribute('aria-invalid')) === null, 'the base URL is still marked invalid');

  // With it: reachable, the models listed, one found by searching.
  await keyField.fill(key);
  await test.click();
  await form.getByRole('status').getByText(/Reachable: the server lists 2 models\./).waitFor();
  await form.getByRole('searchbox', { name: 'Search models' }).fill(model.slice(-5));
  const list = form.getByRole('listbox', { name: 'Model' });
  await list.getByRole('option', { name: model }).waitFor();
  await list.selectOption(model);
  await form.getByRole('textbox', { name: 'Profile name' }).fill('typed-in');
  await shot(page, 'firstrun-other-tested.png');
  await form.getByRole('button', { name: 'Save and start a session' }).click();

  // Saving leads straight into the first session.
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.waitFor();
  const provider = dialog.getByRole('combobox', { name: 'Provider profile' });
  await dialog.getByRole('combobox', { name: 'Folder' }).waitFor();
  check((await provider.inputValue()) === 'typed-in', `provider profile offered: ${await provider.inputValue()}; want typed-in`);
  await dialog.getByRole('combobox', { name: 'Folder' }).fill(project);
  await dialog.getByRole('textbox', { name: 'Title (optional)' }).fill('Typed-in server');
  await dialog.getByRole('button', { name: 'Create session' }).click();
  await dialog.waitFor({ state: 'detached' });
  await main.getByRole('heading', { level: 2, name: 'Typed-in server' }).waitFor();
  const profiles = await api(page, 'Providers');
  check(profiles.length === 1 && profiles[0].name === 'typed-in' && profiles[0].model === model && profiles[0].baseUrl === base,
    `stored profiles ${JSON.stringify(profiles)}; want typed-in, ${model}, ${base}`);
  check(!JSON.stringify(profiles).includes(key), 'the key came back in Providers');

  const composer = main.getByRole('form', { name: 'Send a message' });
  await composer.getByRole('textbox', { name: 'Message' }).fill('Say hello.');
  await composer.getByRole('textbox', { name: 'Message' }).press('Enter');
  await page.getByRole('log', { name: 'Conversation' }).getByText(answer).waitFor();
  await shot(page, 'firstrun-other-answer.png');
  check(!(await page.content()).includes(key), 'the key is on the page');
}

const browser = await launch();
let failed = false;
try {
  const { page, errors } = await newPage(browser);

  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);
  const main = page.getByRole('main');
  // The window opens on the setup, not on an error.
  await main.getByRole('heading', { level: 2, name: 'Set up Foya' }).waitFor();
  const servers = main.getByRole('list', { name: 'Model servers' });
  await servers.waitFor();
  await servers.getByRole('listitem', { name: 'OPENAI_API_KEY and OPENAI_BASE_URL: no key set' }).waitFor();

  if (which === 'found') {
    const port = env('FOYA_PORT');
    const model = env('FOYA_MODEL');
    const project = env('FOYA_PROJECT');
    const name = `OpenAI-compatible server on port ${port}`;
    await servers.getByRole('listitem', { name: `${name}: found, 2 models` }).waitFor();
    await main.getByText(model).first().waitFor();
    await shot(page, 'firstrun-found.png');

    const form = main.getByRole('form', { name: 'Save a provider profile' });
    check(await form.getByRole('radio', { name: `${name} (found, 2 models)` }).isChecked(), 'the found server is not the chosen one');
    await form.getByRole('listbox', { name: 'Model' }).selectOption(model);
    await form.getByRole('textbox', { name: 'Profile name' }).fill('scripted');
    await form.getByRole('button', { name: 'Save and start a session' }).click();
    // The new-session dialog opens at once, modal: what is behind it is aria-hidden.
    await page.getByRole('main', { includeHidden: true }).getByText('Saved as provider profile “scripted”').waitFor();
    const profiles = await api(page, 'Providers');
    check(profiles.length === 1 && profiles[0].name === 'scripted' && profiles[0].model === model &&
      profiles[0].baseUrl === `http://127.0.0.1:${port}/v1`, `stored profiles ${JSON.stringify(profiles)}; want scripted, ${model}`);
    await shot(page, 'firstrun-saved.png');

    // Saving opens the shell's new-session dialog, with the new profile.
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.waitFor();
    const provider = dialog.getByRole('combobox', { name: 'Provider profile' });
    check((await provider.inputValue()) === 'scripted', `provider profile offered: ${await provider.inputValue()}; want scripted`);
    await dialog.getByRole('combobox', { name: 'Folder' }).fill(project);
    await dialog.getByRole('textbox', { name: 'Title (optional)' }).fill('First project');
    await dialog.getByRole('button', { name: 'Create session' }).click();
    await dialog.waitFor({ state: 'detached' });
    await main.getByRole('heading', { level: 2, name: 'First project' }).waitFor();
    const stored = await api(page, 'Sessions');
    check(stored.length === 1 && stored[0].workdir === project && stored[0].provider === 'scripted' && stored[0].model === model,
      `stored sessions ${JSON.stringify(stored)}; want one on ${project} with scripted, ${model}`);
    await shot(page, 'firstrun-session.png');

    // A reload opens the session, not the setup: there is a profile now.
    await page.reload();
    await main.getByRole('heading', { level: 2, name: 'First project' }).waitFor();
  } else if (which === 'other') {
    await otherServer(page, main);
  } else {
    await main.getByText('No model server found').waitFor();
    await main.getByText(/Connect to a provider below/).waitFor();
    const form = main.getByRole('form', { name: 'Save a provider profile' });
    check((await form.getByRole('group', { name: 'Providers' }).getByRole('radio').count()) === 9, 'the providers are not offered');
    await shot(page, 'firstrun-none.png');
    await main.getByRole('button', { name: 'Continue without a model' }).click();
    await main.getByRole('heading', { level: 2, name: 'Start your first session' }).waitFor();
    await shot(page, 'firstrun-continued.png');
    // The setup is still there, from the sidebar.
    await page.getByRole('complementary', { name: 'Sessions sidebar' }).getByRole('button', { name: 'Set up a model' }).click();
    await main.getByRole('heading', { level: 2, name: 'Set up Foya' }).waitFor();
    check((await api(page, 'Providers')).length === 0, 'a profile was stored without the user saving one');
  }
  check(errors.length === 0, `errors on the page: ${errors.join('; ')}`);
  console.log(`first run (${which}) ok; screenshots: ${saved.join(', ')}`);
} catch (err) {
  failed = true;
  console.error(`first run (${which}) failed: ${err.stack || err}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
