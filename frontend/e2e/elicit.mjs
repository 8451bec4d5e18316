// Browser end-to-end: an MCP server's question during a tool call
// (elicitation), answered in its form. Started by tests/e2e (Go,
// TestBrowserMCPElicitation), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_TITLE     the session to open (Full Access, with no run yet)
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// The scripted model calls the server's tool "ask", which asks for a name
// (required), an age (default 30), a color (Red or Green, default Red) and
// an agreement (default no). The form shows with the defaults and focus
// in its first field; Enter with the name empty says "required" at it;
// filled, Enter sends, the form goes and the run ends. The Go side checks
// that the server got the values.
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, openSession, screenshots } from './lib.mjs';

const url = env('FOYA_URL');
const title = env('FOYA_TITLE');
const { shot, saved } = screenshots(env('FOYA_SHOTS'));

const browser = await launch();
let failed = false;
let step = 'open the session';
try {
  const { page, errors, main } = await openSession(browser, url, title);
  const message = main.getByRole('form', { name: 'Send a message' }).getByRole('textbox', { name: 'Message' });
  step = 'send the prompt';
  await message.fill('Ask me who I am.');
  await message.press('Enter');

  step = 'the form';
  const form = main.getByRole('region', { name: 'The MCP server el asks' });
  await form.waitFor();
  await form.getByText('Who is asking?').waitFor();
  const name = form.getByRole('textbox', { name: /Your name/ });
  check((await name.getAttribute('aria-required')) === 'true', 'the name is not marked required');
  check((await form.getByRole('textbox', { name: 'Age' }).inputValue()) === '30', 'the age default is not filled in');
  check((await form.getByRole('combobox', { name: 'Color' }).inputValue()) === 'r', 'the color default is not chosen');
  check(!(await form.getByRole('checkbox', { name: 'I agree' }).isChecked()), 'the agreement default is not off');
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-field') === 'name');
  await shot(page, 'elicit-01-form.png');

  step = 'Enter with the name empty';
  // The form ignores Enter in its first half second; a keystroke meant for
  // the message box never sends it.
  await page.waitForTimeout(600);
  await page.keyboard.press('Enter');
  await form.getByText('required', { exact: true }).waitFor();
  check((await name.getAttribute('aria-invalid')) === 'true', 'the empty name is not marked invalid');

  step = 'fill and send';
  await name.fill('Ada');
  await form.getByRole('textbox', { name: 'Age' }).fill('42');
  await form.getByRole('combobox', { name: 'Color' }).selectOption('g');
  await form.getByRole('checkbox', { name: 'I agree' }).check();
  await shot(page, 'elicit-02-filled.png');
  await name.press('Enter');
  await form.waitFor({ state: 'detached' });
  await main.getByText('Thanks, all done.').waitFor();
  await shot(page, 'elicit-03-sent.png');

  check(errors.length === 0, `errors on the page: ${errors.join('; ')}`);
  console.log(`elicitation ok; screenshots: ${saved.join(', ')}`);
} catch (err) {
  failed = true;
  console.error(`elicitation failed at "${step}": ${err.stack || err}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
