// Browser end-to-end: "Test connection" in a failed run's notice. The
// model server is stopped after a first answer; a prompt then fails with
// "could not reach", and Test connection in the notice says Foya cannot
// connect; once the server is started again it says Foya connects.
// Started by tests/e2e (Go, TestBrowserRunErrorTestConnection), which passes:
//   FOYA_URL        the token URL foya serve printed
//   FOYA_MODEL_HOST the model server's host:port
//   FOYA_STOP_URL   a URL that stops the model server when asked
//   FOYA_START_URL  a URL that starts it again, at the same address
//   FOYA_SHOTS      the folder to save screenshots in
//   FOYA_CHROMIUM   the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, openSession, screenshots } from './lib.mjs';

const url = env('FOYA_URL');
const host = env('FOYA_MODEL_HOST');
const stopURL = env('FOYA_STOP_URL');
const startURL = env('FOYA_START_URL');
const { shot } = screenshots(env('FOYA_SHOTS'));

const ask = async (u) => {
  const r = await fetch(u);
  check(r.ok, `GET ${u}: ${r.status} ${await r.text()}`);
};

const browser = await launch();
let step = 'start';
let failed = false;
try {
  const { page, errors, main } = await openSession(browser, url, 'Test connection');
  const log = page.getByRole('log', { name: 'Conversation', includeHidden: true });
  const send = async (text) => {
    await main.getByRole('form', { name: 'Send a message' }).getByRole('textbox', { name: 'Message' }).fill(text);
    await page.keyboard.press('Enter');
  };

  step = 'a first answer while the server runs';
  await send('Say hello');
  await log.getByText('Hello while the server runs.').waitFor();

  step = 'the server stops; the next run fails';
  await ask(stopURL);
  await send('Say it again');
  const alert = log.getByRole('alert', { name: /The run failed/ });
  await alert.waitFor();
  const words = await alert.textContent();
  check(words.includes(`Foya could not reach the model server at ${host}.`), `the failure does not say it in words: ${words}`);
  const buttons = await alert.getByRole('button').allTextContents();
  check(buttons.indexOf('Test connection') === buttons.indexOf('Retry') + 1, `the notice's buttons are ${JSON.stringify(buttons)}; want Test connection after Retry`);

  step = 'Test connection says Foya cannot connect';
  await alert.getByRole('button', { name: 'Test connection' }).click();
  const result = alert.getByRole('status');
  await result.getByText(`Foya cannot connect to the model server at http://${host}/v1`, { exact: false }).waitFor();
  await shot(page, 'testconn-1-down.png');

  step = 'the server is started again: Test connection says Foya connects';
  await ask(startURL);
  await alert.getByRole('button', { name: 'Test connection' }).click();
  await result.getByText(`Foya connects to the model server at http://${host}/v1. Model m answered.`, { exact: true }).waitFor();
  await shot(page, 'testconn-2-up.png');

  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`testconn.mjs: ${step}: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
