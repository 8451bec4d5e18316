// Browser end-to-end: approval requests inline in the conversation,
// answered from the keyboard. Started by tests/e2e (Go,
// TestBrowserInlineApprovals), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_TITLE     the session to open (in Manual, with no run yet)
//   FOYA_PROJECT   its folder
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// The scripted model runs a bash command, calls the MCP tool note_add of
// the server "notes" with a long text, writes notes.txt, then answers.
// Each request is found by role and name at its call, shows what would
// run, takes focus, and is answered with its key (Y, Y, S); the run goes
// on each time. At 1280x800, nothing inside a request scrolls on its own.
// Exits 0 when every check holds, 1 with the reason otherwise.
import { api, check, env, launch, pageErrors, screenshots, timeout } from './lib.mjs';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const url = env('FOYA_URL');
const title = env('FOYA_TITLE');
const project = env('FOYA_PROJECT');
const shots = env('FOYA_SHOTS');
const { shot } = screenshots(shots);
for (const f of readdirSync(shots)) if (f.startsWith('approvals-') && f.endsWith('.png')) rmSync(join(shots, f));

const read = (p) => (existsSync(p) ? readFileSync(p, 'utf8') : null);

// onDisk waits until path holds want: an answer given on the page reaches
// the disk through the kernel a moment later.
async function onDisk(path, want, what) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const got = read(path);
    if (got === want) return;
    if (Date.now() > deadline) throw new Error(`${what}: ${path} holds ${JSON.stringify(got)}; want ${JSON.stringify(want)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// armed waits until a request takes answers (it ignores keys and clicks
// for its first 500 ms).
const armed = (request) => request.locator('xpath=self::*[@data-armed="true"]').waitFor();

// focused waits until the request has focus.
async function focused(request, what) {
  const deadline = Date.now() + timeout;
  while (!(await request.evaluate((el) => el === document.activeElement))) {
    if (Date.now() > deadline) {
      const active = await request.page().evaluate(() => document.activeElement?.outerHTML.slice(0, 200));
      throw new Error(`${what}: the request does not have focus; ${active} has`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

// noInnerScroll checks that nothing inside the request scrolls on its own:
// the transcript is the one scroller.
async function noInnerScroll(request, what) {
  const inner = await request.evaluate((root) =>
    [root, ...root.querySelectorAll('*')]
      .filter((el) => {
        const s = getComputedStyle(el);
        const y = /auto|scroll/.test(s.overflowY) && el.scrollHeight > el.clientHeight + 1;
        const x = /auto|scroll/.test(s.overflowX) && el.scrollWidth > el.clientWidth + 1;
        return x || y;
      })
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
  );
  check(inner.length === 0, `${what}: these scroll inside the request: ${inner.join(', ')}`);
}

const browser = await launch();
let failed = false;
let step = 'start';
let page = null;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.setDefaultTimeout(timeout);
  const errors = pageErrors(page);
  await page.goto(url);
  await page.getByRole('complementary', { name: 'Sessions sidebar' }).getByRole('button', { name: title, exact: true }).click();
  const main = page.getByRole('main');
  await main.getByRole('heading', { level: 2, name: title }).waitFor();
  const log = main.getByRole('log', { name: 'Conversation' });
  const composer = main.getByRole('form', { name: 'Send a message' });
  const message = composer.getByRole('textbox', { name: 'Message' });

  step = 'send the prompt';
  await message.fill('Run the command, add the note, then write notes.txt.');
  await message.press('Enter');

  // 1. The bash call: at its card, the command and its parse; it takes
  // focus; the composer says it waits and its Attach… stays uncovered.
  step = 'the bash request';
  const bashCard = log.getByRole('article', { name: /^bash echo inline/ });
  const bash = bashCard.getByRole('region', { name: 'Run a command?' });
  await bash.waitFor();
  check((await bash.getByLabel('Command', { exact: true }).textContent()).includes('echo inline > ran.txt && echo ok'), 'the request does not show the command');
  const parsed = await bash.getByRole('list', { name: 'Commands it runs' }).getByRole('listitem').allTextContents();
  check(JSON.stringify(parsed) === JSON.stringify(['echo inline', 'echo ok']), `the parsed commands are ${JSON.stringify(parsed)}`);
  await focused(bash, step);
  const status = composer.getByRole('status');
  check((await status.textContent()).includes('Waiting for your approval: Run a command?'), `the composer says ${await status.textContent()}`);
  const attach = composer.getByRole('button', { name: 'Attach…' });
  const box = await attach.boundingBox();
  const onTop = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('button')?.textContent, [box.x + box.width / 2, box.y + box.height / 2]);
  check(onTop === 'Attach…', `something covers Attach…: ${onTop}`);
  check((await page.getByRole('dialog').count()) === 0, 'a dialog is open: the request should be inline');
  await noInnerScroll(bash, step);
  await shot(page, 'approvals-01-bash.png');
  await armed(bash);
  await page.keyboard.press('y');
  await onDisk(join(project, 'ran.txt'), 'inline\n', 'after Y on the bash request');
  await bash.waitFor({ state: 'detached' });

  // 2. The MCP call: the server, its tool, the arguments as JSON with the
  // long text folded until Show all; Y allows it.
  step = 'the MCP request';
  const mcp = log.getByRole('region', { name: 'Call an MCP tool?' });
  await mcp.waitFor();
  const what = mcp.getByRole('group', { name: 'What it does' });
  check((await what.textContent()).includes('MCP servernotes'), `the request does not name the server: ${await what.textContent()}`);
  check((await what.textContent()).includes("Server's toolnote_add"), 'the request does not name the server\'s tool');
  const args = mcp.getByLabel('Arguments', { exact: true });
  const folded = await args.textContent();
  check(folded.startsWith('{\n  "text": "remember') && /… \(\d+ more characters\)/.test(folded), `the arguments shown are ${JSON.stringify(folded)}`);
  await focused(mcp, step);
  await noInnerScroll(mcp, step);
  await shot(page, 'approvals-02-mcp.png');
  await armed(mcp);
  await mcp.getByRole('button', { name: 'Show all' }).click();
  check(!(await args.textContent()).includes('more characters'), 'Show all does not show the whole arguments');
  // The click moved focus to Show all, inside the request: its keys still work.
  await page.keyboard.press('y');
  await mcp.waitFor({ state: 'detached' });

  // 3. The write: its diff; S allows it for the session, the run ends.
  step = 'the write request';
  const write = log.getByRole('region', { name: 'Write a file?' });
  await write.waitFor();
  await write.getByRole('table', { name: /^Diff of .*notes\.txt$/ }).getByText('second line', { exact: true }).waitFor();
  await focused(write, step);
  await noInnerScroll(write, step);
  // One Tab from the request reaches Allow once.
  await armed(write);
  await page.keyboard.press('Tab');
  check(await write.getByRole('button', { name: 'Allow once' }).evaluate((el) => el === document.activeElement), 'Tab from the request does not reach Allow once');
  await write.focus();
  await page.keyboard.press('s');
  await onDisk(join(project, 'notes.txt'), 'first line\nsecond line\n', 'after S on the write request');
  await log.getByText('All three done.').waitFor();
  // The note was added: the MCP call's stored result (its card may be out
  // of the transcript's drawn rows by now).
  const [sess] = await api(page, 'Sessions');
  const [run] = await api(page, 'Runs', sess.id);
  const note = (await api(page, 'Calls', run.id)).find((c) => c.name === 'mcp__notes__note_add');
  check(note && note.result && !note.result.isError && note.result.text.includes('note 1 added'), `the MCP call's result is ${JSON.stringify(note && note.result)}`);
  check((await composer.getByRole('status').count()) === 0, 'the composer still says a request waits');
  check(await message.evaluate((el) => el === document.activeElement), 'focus did not go back to the message box');
  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
  console.log('ok: bash, MCP and write requests inline at their calls, shown, focused, answered with Y, Y and S; the run went on');
} catch (e) {
  failed = true;
  console.error(`FAIL at "${step}": ${e.message}`);
  if (page) await shot(page, 'approvals-failure.png').catch(() => {});
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
