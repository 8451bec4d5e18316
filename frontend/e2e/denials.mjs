// Browser end-to-end: a sandbox denial on a bash card, allowed for the
// session from the card. Started by tests/e2e (Go,
// TestBrowserSandboxDenialAllowedForSession) on a session in Auto whose
// first run's bash call wrote outside the workspace; the model's next turn
// runs the same command. It passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_COMMAND   the command
//   FOYA_FOLDER    the folder outside the workspace it writes
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, openSession, screenshots } from './lib.mjs';

const url = env('FOYA_URL');
const command = env('FOYA_COMMAND');
const folder = env('FOYA_FOLDER');
const { shot } = screenshots(env('FOYA_SHOTS'));

const browser = await launch();
let step = 'start';
let failed = false;
try {
  step = 'open the session';
  const { page, errors, main } = await openSession(browser, url, 'Sandbox denials');

  step = 'the card says what the sandbox refused';
  const cards = main.getByRole('article', { name: `bash ${command}`, exact: true });
  const first = cards.first();
  const refused = first.getByRole('region', { name: 'Refused by the sandbox' });
  await refused.waitFor();
  const text = await refused.textContent();
  check(text.includes(`Write to ${folder}/f refused: outside the workspace`), `the card says ${JSON.stringify(text)}`);
  await shot(page, 'denials-1-refused.png');

  step = 'allow the folder for the session';
  await refused.getByRole('button', { name: `Allow writes to ${folder} for this session`, exact: true }).click();
  const done = refused.getByRole('status');
  await done.waitFor();
  const said = await done.textContent();
  check(said.includes(`Allowed: ${folder} writable for the session`), `after allowing, the card says ${JSON.stringify(said)}`);

  step = 'the header lists the grant';
  const pill = page.getByRole('button', { name: 'Sandbox: 1 allowed beyond the workspace', exact: true });
  await pill.click();
  const list = page.getByRole('dialog', { name: 'Sandbox grants of this session' });
  await list.getByText(`${folder} writable for the session`, { exact: true }).waitFor();
  await list.getByRole('button', { name: `Revoke ${folder} writable for the session`, exact: true }).waitFor();
  await shot(page, 'denials-2-grants.png');
  await page.keyboard.press('Escape');
  await list.waitFor({ state: 'detached' });

  step = 'the same command, sent again, succeeds';
  const composer = main.getByRole('form', { name: 'Send a message' });
  const message = composer.getByRole('textbox', { name: 'Message' });
  await message.fill('Try again');
  await message.press('Enter');
  const second = cards.nth(1);
  await second.getByText('exit 0', { exact: true }).waitFor();
  check((await second.getByRole('region', { name: 'Refused by the sandbox' }).count()) === 0, 'the second run is refused too');
  await shot(page, 'denials-3-allowed.png');

  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`denials.mjs: ${step}: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
