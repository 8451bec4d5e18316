// Browser end-to-end: the first run, as a person meets it on a Foya with no
// provider profile and no session. Started by tests/e2e (Go), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_CASE      "found" (a scripted server listens on a probed port) or
//                  "none" (nothing answers on the probed ports, no key)
//   FOYA_PORT      (found) the scripted server's port
//   FOYA_MODEL     (found) the model to choose among those it lists
//   FOYA_PROJECT   (found) an empty folder to create the session on
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
    check(await form.getByRole('radio', { name: new RegExp(name) }).isChecked(), 'the found server is not the chosen one');
    await form.getByRole('combobox', { name: 'Model' }).selectOption(model);
    await form.getByRole('textbox', { name: 'Profile name' }).fill('scripted');
    await form.getByRole('button', { name: 'Save provider profile' }).click();
    await main.getByText('Saved as provider profile “scripted”').waitFor();
    const profiles = await api(page, 'Providers');
    check(profiles.length === 1 && profiles[0].name === 'scripted' && profiles[0].model === model &&
      profiles[0].baseUrl === `http://127.0.0.1:${port}/v1`, `stored profiles ${JSON.stringify(profiles)}; want scripted, ${model}`);
    await shot(page, 'firstrun-saved.png');

    // Choose the project folder: the shell's new-session dialog, with the new profile.
    await main.getByRole('button', { name: 'Choose a project folder' }).click();
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
  } else {
    await main.getByText('No model server found').waitFor();
    await main.getByText(/add a provider later in Settings → Providers/).waitFor();
    check((await main.getByRole('form', { name: 'Save a provider profile' }).count()) === 0, 'a save form with nothing to save');
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
