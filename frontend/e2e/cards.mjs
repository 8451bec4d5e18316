// Browser end-to-end: tool cards that tell the outcome, found by role and
// name. Started by tests/e2e (Go, TestBrowserToolCards) on a session whose
// one step ran sh -c 'echo one; echo two; exit 3' and read a.txt, b.txt and
// c.txt. It passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, openSession, screenshots } from './lib.mjs';

const url = env('FOYA_URL');
const { shot } = screenshots(env('FOYA_SHOTS'));

const browser = await launch();
let step = 'start';
let failed = false;
try {
  step = 'open the session';
  const { page, errors, main } = await openSession(browser, url, 'Tool cards');

  step = 'the shell card says exit 3';
  const bash = main.getByRole('article', { name: "bash sh -c 'echo one; echo two; exit 3'", exact: true });
  await bash.waitFor();
  const badge = bash.getByText('exit 3', { exact: true });
  await badge.waitFor();
  const colour = await badge.evaluate((el) => getComputedStyle(el).color);
  const plain = await bash.evaluate((el) => getComputedStyle(el.querySelector('.convo-card-tool')).color);
  check(colour !== plain, `"exit 3" has the text's colour (${colour}), not the error look`);
  check((await bash.getByText('done', { exact: true }).count()) === 0, 'the shell card says "done" beside its exit status');

  step = 'the shell card shows its last lines';
  const out = bash.getByLabel("Output of bash sh -c 'echo one; echo two; exit 3'", { exact: true });
  await out.waitFor();
  const text = await out.textContent();
  check(text === 'one\ntwo', `the output shown is ${JSON.stringify(text)}; want "one\\ntwo"`);
  const font = await out.evaluate((el) => getComputedStyle(el).fontFamily);
  check(/mono/i.test(font), `the output is not in a monospace font (${font})`);
  await shot(page, 'cards-1-exit.png');

  step = 'the reads are one card';
  const group = main.getByRole('article', { name: 'Read 3 files', exact: true });
  await group.waitFor();
  check((await main.getByRole('article', { name: 'read a.txt', exact: true }).count()) === 0, 'a read has its own card before the group is opened');
  const show = group.getByRole('button', { name: 'Show the 3 calls', exact: true });
  check((await show.getAttribute('aria-expanded')) === 'false', 'the group starts open');
  await show.click();
  const calls = group.getByRole('list', { name: 'Calls of Read 3 files', exact: true });
  for (const f of ['a.txt', 'b.txt', 'c.txt']) {
    const c = calls.getByRole('article', { name: `read ${f}`, exact: true });
    await c.waitFor();
    await c.getByText(`${f} says hello`).waitFor();
  }
  await shot(page, 'cards-2-group.png');

  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`cards.mjs: ${step}: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
