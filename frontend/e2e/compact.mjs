// Browser end-to-end: a session whose run passed the compaction threshold
// of its model's window (issue 28): the conversation's compaction row
// (where it happened, what it kept, the summary on demand, Undo), and the
// context meter's popover (the window, the tokens used, Compact now).
// Started by tests/e2e (Go, TestBrowserCompaction), which passes:
//   FOYA_URL      the token URL foya serve printed
//   FOYA_SESSION  the session's ID; its run compacted once and ended
//   FOYA_TITLE    the session's title
//   FOYA_SHOTS    the folder to save screenshots in
//   FOYA_CHROMIUM the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { api, check, env, launch, openSession, reveal, screenshots, timeout, transcriptSettled } from './lib.mjs';

const url = env('FOYA_URL');
const id = env('FOYA_SESSION');
const title = env('FOYA_TITLE');
const { shot } = screenshots(env('FOYA_SHOTS'));

/** eventsOf waits until the session's stored events of type type number at least n. */
async function eventsOf(page, type, n) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const evs = (await api(page, 'Events', id, 0)).filter((e) => e.type === type);
    if (evs.length >= n) return evs;
    if (Date.now() > deadline) throw new Error(`${n} ${type} events were not stored; ${evs.length} are`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const browser = await launch();
let step = 'start';
let failed = false;
let page;
try {
  const opened = await openSession(browser, url, title);
  page = opened.page;
  const { errors, main } = opened;
  await page.setViewportSize({ width: 1280, height: 800 });
  const log = main.getByRole('log', { name: 'Conversation' });
  await log.getByText('I read all 40 notes').waitFor();
  await transcriptSettled(log);

  step = 'the compaction row: where, what it kept';
  const [made] = await eventsOf(page, 'context.compacted', 1);
  const row = await reveal(log, log.getByRole('region', { name: 'Compaction' }));
  const text = await row.textContent();
  const upto = made.data.upto;
  for (const want of [
    `The context was compacted: messages 1 to ${upto} (1 turn) are summarised`,
    'Kept exactly: 1 file changed, 3 tasks, and the newest messages. The full history stays stored.',
  ]) {
    check(text.includes(want), `the compaction row says ${JSON.stringify(text)}; want ${JSON.stringify(want)}`);
  }
  // Where it happened: between two of the run's reads, before the step
  // whose request first sent the note, not after the run's answer.
  await row.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  const at = await row.evaluate((el) => Number(el.closest('[data-item-index]').dataset.itemIndex));
  // The list draws the rows around it.
  for (const i of [at - 1, at + 1, at + 2]) await log.locator(`[data-item-index="${i}"]`).waitFor({ state: 'attached' });
  const [before, next] = await row.evaluate((el, at) => {
    // The nearest row on each side with text (a step without text is empty).
    const near = (step) => {
      for (let i = at + step; Math.abs(i - at) <= 3; i += step) {
        const t = document.querySelector(`[data-item-index="${i}"]`)?.textContent ?? '';
        if (t.trim() !== '') return t;
      }
      return '';
    };
    return [near(-1), near(1)];
  }, at);
  check(/read\s*notes\/\d+\.txt/.test(before) && /read\s*notes\/\d+\.txt/.test(next),
    `the compaction row is not between two reads: before it ${JSON.stringify(before.slice(0, 80))}, after it ${JSON.stringify(next.slice(0, 80))}`);

  step = 'the summary on demand';
  await row.getByRole('button', { name: 'Show the summary' }).click();
  await row.getByText(/Read the shop's notes and sum them up \(summary 1\)/).waitFor();
  await shot(page, 'compact-row.png');
  await row.getByRole('button', { name: 'Hide the summary' }).click();

  step = 'Undo';
  const undo = row.getByRole('button', { name: 'Undo' });
  check(!(await undo.isDisabled()), 'Undo is disabled after the run ended');
  await undo.click();
  await row.getByText('Undone: later requests send those messages again.').waitFor();
  check((await row.getByRole('button', { name: 'Undo' }).count()) === 0, 'an undone compaction still offers Undo');
  const [undone] = await eventsOf(page, 'context.uncompacted', 1);
  check(undone.data.id === made.data.id, `context.uncompacted undid ${undone.data.id}; want ${made.data.id}`);

  step = "the context meter's popover";
  const form = main.getByRole('form', { name: 'Send a message' });
  const meter = form.getByRole('button', { name: /^Context: / });
  check(/^[\d.]+k \/ 16\.4k$/.test((await meter.textContent()).trim()), `the meter reads ${await meter.textContent()}; want the tokens used of 16.4k`);
  await meter.click();
  const pop = page.getByRole('dialog', { name: 'Context' });
  const said = await pop.textContent();
  for (const want of ['Windowscripted-small: 16,384 tokens, from the profile\'s setting', 'Last request11,200 tokens (68% of the window)', 'This session11,200 prompt, 40 completion tokens']) {
    check(said.includes(want), `the popover says ${JSON.stringify(said)}; want ${JSON.stringify(want)}`);
  }
  await shot(page, 'compact-meter.png');

  step = 'Compact now';
  await pop.getByRole('button', { name: 'Compact now' }).click();
  await pop.getByRole('status').filter({ hasText: /^Compacted: messages 1 to \d+ are summarised\.$/ }).waitFor();
  await eventsOf(page, 'context.compacted', 2);
  step = 'the popover closes with Escape';
  await page.keyboard.press('Escape');
  await pop.waitFor({ state: 'detached' });
  check(await meter.evaluate((el) => el === document.activeElement), 'focus is not back on the meter after Escape');

  step = "the person's compaction has a row, with Undo";
  const mine = await reveal(log, log.getByRole('region', { name: 'Compaction' }).filter({ hasText: 'You compacted the context' }));
  await mine.getByRole('button', { name: 'Undo' }).waitFor();
  await shot(page, 'compact-user.png');

  check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`compact.mjs: ${step}: ${e.message}`);
  if (page) await shot(page, 'compact-failed.png').catch(() => {});
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
