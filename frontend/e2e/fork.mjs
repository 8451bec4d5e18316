// Browser end-to-end: fork a session from its second prompt (issue 29
// item 2), controls found by role and name. Started by tests/e2e (Go,
// TestBrowserForkFromSecondPrompt), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_PARENT    the session "Parser": two completed prompts
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, openSession, screenshots, transcriptSettled } from './lib.mjs';

const url = env('FOYA_URL');
const parent = env('FOYA_PARENT');
const { shot } = screenshots(env('FOYA_SHOTS'));

const browser = await launch();
let step = 'start';
let failed = false;
try {
  const { page, errors, main, sidebar } = await openSession(browser, url, 'Parser');
  const log = main.getByRole('log', { name: 'Conversation' });
  await log.getByText('Wrote the tests.').waitFor();
  check((await log.getByRole('button', { name: /^Fork from here/ }).count()) === 2, 'want a Fork action on each of the two prompts');

  step = 'fork from the second prompt, by the keyboard';
  const fork = log.getByRole('button', { name: 'Fork from here (prompt 2)' });
  await fork.focus();
  await page.keyboard.press('Enter');
  await main.getByRole('heading', { level: 2, name: 'Parser (fork)' }).waitFor();
  check(!page.url().endsWith(`#session=${parent}`), `the address still names the parent: ${page.url()}`);
  await main.getByText('Forked from “Parser” at prompt 2 · shares its folder').waitFor();
  const box = main.getByRole('textbox', { name: 'Message' });
  check((await box.inputValue()) === 'Write the tests', `the fork's message box holds ${JSON.stringify(await box.inputValue())}; want the second prompt`);
  check(await box.evaluate((el) => el === document.activeElement), "the fork's message box does not have the focus after forking by the keyboard");
  const forkLog = main.getByRole('log', { name: 'Conversation' });
  await forkLog.getByText('Wrote the parser.').waitFor();
  check((await forkLog.getByText('Wrote the tests.').count()) === 0, "the fork shows the second prompt's answer");

  step = 'the branch in the session list';
  const list = sidebar.getByRole('list', { name: 'Sessions' });
  const rows = list.getByRole('listitem');
  const names = await rows.evaluateAll((els) => els.map((el) => el.querySelector('.session-item')?.getAttribute('aria-label')));
  const at = names.indexOf('Parser');
  check(at >= 0 && names[at + 1] === 'Parser (fork)', `the fork is not listed right under its parent: ${JSON.stringify(names)}`);
  const branch = rows.nth(at + 1);
  check(await branch.evaluate((el) => el.classList.contains('is-fork')), 'the fork is not shown as a branch');
  await branch.getByText('forked from “Parser” at prompt 2').waitFor();
  await shot(page, 'fork-1-branch.png');

  step = 'send the changed prompt in the fork';
  await box.fill('Write the tests with tables');
  await box.press('Enter');
  await forkLog.getByText('Wrote table tests in the fork.').waitFor();
  await shot(page, 'fork-2-sent.png');
  // The fork holds the parent's one change: counted once, not again
  // for the copied history.
  const counted = await branch.textContent();
  check(counted.includes('1 to review'), `the fork's row says ${JSON.stringify(counted)}; want 1 to review`);

  step = 'the parent is as it was';
  await list.getByRole('button', { name: 'Parser', exact: true }).click();
  await main.getByRole('heading', { level: 2, name: 'Parser' }).waitFor();
  await main.getByRole('log', { name: 'Conversation' }).getByText('Wrote the tests.').waitFor();

  step = 'the branch in the dark theme';
  await page.evaluate(() => localStorage.setItem('foya.theme', 'dark'));
  await page.reload();
  check((await page.evaluate(() => document.documentElement.dataset.theme)) === 'dark', 'the dark theme did not take');
  await list.getByRole('button', { name: 'Parser (fork)', exact: true }).click();
  await main.getByRole('heading', { level: 2, name: 'Parser (fork)' }).waitFor();
  await transcriptSettled(main.getByRole('log', { name: 'Conversation' })); // until then a row's text is in the page twice
  await main.getByRole('log', { name: 'Conversation' }).getByText('Wrote table tests in the fork.').waitFor();
  await shot(page, 'fork-3-dark.png');

  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`fork.mjs: ${step}: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
