// The conversation view in Chromium (issue 12, performance): a session of
// 2,000 tool cards opened and rendered (Performance API), scrolled through,
// a stream of 1,000 text deltas per second, with the long tasks (> 50 ms)
// each causes; and following: a new row keeps the view at the bottom, a
// person who scrolled up stays where they are and gets "Jump to latest".
// Run from frontend/:
//   npx vite build --config e2e/conversation/vite.config.ts
//   node e2e/conversation/check.mjs
// It starts `npx vite preview` itself, prints the figures, and exits 1
// when a following check fails (figures are printed, not asserted).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const step = (s) => process.env.CONVO_VERBOSE && console.log(`… ${s}`);
const port = 4179;
const url = `http://127.0.0.1:${port}/`;

const preview = spawn(process.execPath, ['node_modules/vite/bin/vite.js', 'preview', '--config', 'e2e/conversation/vite.config.ts', '--port', String(port)], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
step('preview');
await new Promise((resolve, reject) => {
  preview.stdout.on('data', (b) => String(b).includes(String(port)) && resolve());
  preview.on('exit', (code) => reject(new Error(`vite preview exited (${code})`)));
});

function check(ok, message) {
  if (!ok) throw new Error(message);
}

const browser = await chromium.launch({
  executablePath: process.env.FOYA_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
step('browser');
let failed = false;
try {
  const opens = [];
  for (let i = 0; i < 5; i++) {
    const page = await browser.newPage({ viewport: { width: 1024, height: 640 } });
    step(`page ${i}`);
    await page.goto(url);
    await page.waitForFunction(() => window.convo !== undefined);
    const r = await page.evaluate(() => window.convo.open(2000));
    // The long tasks of opening: from the first event pushed on (loading the
    // page and making the stored history come before), once the observer has
    // been told of them.
    await page.waitForTimeout(50);
    const long = await page.evaluate((t0) => window.convo.longTasks(t0), r.t0);
    opens.push({ ...r, longest: Math.max(0, ...long) });
    step(JSON.stringify(opens[opens.length - 1]));
    if (i < 4) await page.close();
    else {
      // Scroll from the bottom to the top and back in steps of a screen.
      const before = (await page.evaluate(() => window.convo.longTasks())).length;
      const scroller = page.locator('[data-virtuoso-scroller]');
      for (let k = 0; k < 40; k++) {
        await scroller.evaluate((el) => el.scrollBy(0, -2000));
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
      }
      await scroller.evaluate((el) => el.scrollTo(0, 0));
      await page.waitForTimeout(100);
      const scrollLong = (await page.evaluate(() => window.convo.longTasks())).slice(before);
      console.log(`scroll 40 screens up: ${scrollLong.length} long tasks, longest ${Math.max(0, ...scrollLong).toFixed(0)} ms`);

      step('scrolled');
      // Following: at the bottom, a new card keeps the view at the bottom.
      await page.getByRole('button', { name: 'Jump to latest' }).click();
      await page.waitForTimeout(200);
      const gap = () => scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
      check((await gap()) < 5, `not at the bottom after Jump to latest: ${await gap()} px`);
      check((await page.getByRole('button', { name: 'Jump to latest' }).count()) === 0, 'Jump to latest still shown at the bottom');
      await page.evaluate(() => window.convo.startRun('run_live'));
      for (let k = 0; k < 5; k++) await page.evaluate((k) => window.convo.addCard('run_live', 1, k), k);
      await page.waitForTimeout(300);
      check((await gap()) < 5, `a new card left the view ${await gap()} px above the bottom`);
      await page.getByRole('article', { name: 'bash ls -la' }).first().waitFor();

      step('followed');
      // Streaming at the bottom: the growing text stays in view.
      const streamBefore = (await page.evaluate(() => window.convo.longTasks())).length;
      const sent = await page.evaluate(() => window.convo.stream('run_live', 1, 1000, 2));
      await page.waitForTimeout(300);
      const streamLong = (await page.evaluate(() => window.convo.longTasks())).slice(streamBefore);
      console.log(`stream ${sent} text deltas at 1,000/s: ${streamLong.length} long tasks, longest ${Math.max(0, ...streamLong).toFixed(0)} ms`);
      check((await gap()) < 5, `streamed text left the view ${await gap()} px above the bottom`);

      step('streamed');
      // Scrolled up: new rows do not move the view, and Jump to latest shows.
      await scroller.evaluate((el) => el.scrollBy(0, -1500));
      await page.waitForTimeout(200);
      const top = await scroller.evaluate((el) => el.scrollTop);
      for (let k = 5; k < 10; k++) await page.evaluate((k) => window.convo.addCard('run_live', 1, k), k);
      await page.evaluate(() => window.convo.stream('run_live', 1, 1000, 0.2));
      await page.waitForTimeout(300);
      const after = await scroller.evaluate((el) => el.scrollTop);
      check(Math.abs(after - top) < 2, `scrolled up at ${top}, new rows moved the view to ${after}`);
      const jump = page.getByRole('button', { name: 'Jump to latest' });
      check((await jump.count()) === 1, 'no Jump to latest after scrolling up');
      await jump.click();
      await page.waitForTimeout(300);
      check((await gap()) < 5, `Jump to latest left the view ${await gap()} px above the bottom`);

      step('jumped');
      // Stopping a run: the running card grows (cancelled, with its error)
      // and the turn's end row arrives in the same batch, so in the same
      // frame. The view must stay at the bottom, every time.
      const raf = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
      const stuck = [];
      // On a slow machine (Chromium's CPU throttling): frames of more than
      // the 50 ms Virtuoso waits before it says the view left the bottom.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: Number(process.env.CONVO_THROTTLE || 6) });
      const stops = Number(process.env.CONVO_STOPS || 24);
      for (let k = 0; k < stops; k++) {
        const run = `run_stop_${k}`;
        await page.evaluate((run) => window.convo.startRun(run), run);
        await page.evaluate((run) => window.convo.addCard(run, 1, 0), run);
        await page.evaluate((run) => window.convo.runCard(run, 1, 0), run);
        await raf();
        await page.evaluate(([run, lines, apart, slow]) => window.convo.cancelRun(run, 1, 0, lines, apart, slow), [run, 4 + (k % 12) * 3, [0, 1, 16, 40][k % 4], k % 2 === 0 ? 0 : 80]);
        await page.waitForTimeout(300);
        const g = await gap();
        const jumpShown = (await page.getByRole('button', { name: 'Jump to latest' }).count()) > 0;
        if (g >= 5 || jumpShown) stuck.push(`stop ${k}: ${g.toFixed(0)} px above the bottom${jumpShown ? ', Jump to latest shown' : ''}`);
      }
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      check(stuck.length === 0, `the view stopped following when a card grew as the turn ended (${stuck.length} of ${stops}): ${stuck.slice(0, 5).join('; ')}`);
      await page.screenshot({ path: `${process.env.CONVO_SHOTS || 'node_modules/.cache'}/conversation-2000-cards.png` });
    }
  }
  // The real session of src/features/testdata/run.jsonl, for the eye.
  const shots = process.env.CONVO_SHOTS || 'node_modules/.cache';
  const real = readFileSync('src/features/testdata/run.jsonl', 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  const page = await browser.newPage({ viewport: { width: 1024, height: 640 } });
  await page.goto(url);
  await page.waitForFunction(() => window.convo !== undefined);
  await page.evaluate((evs) => window.convo.show(evs), real.slice(0, 28));
  await page.getByRole('article', { name: 'edit notes.txt' }).getByRole('button', { name: 'Show diff' }).click().catch(() => undefined);
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${shots}/conversation-run.png` });
  step(`screenshot ${shots}/conversation-run.png`);

  const median = (k) => {
    const v = opens.map((o) => o[k]).sort((a, b) => a - b);
    return `median ${v[2].toFixed(0)} ms (min ${v[0].toFixed(0)}, max ${v[4].toFixed(0)})`;
  };
  console.log(`open ${opens[0].events} stored events, 2,000 cards, 5 fresh pages at 1024x640:`);
  console.log(`  folded into the store: ${median('folded')}`);
  console.log(`  first cards in the DOM: ${median('inDom')}`);
  console.log(`  latest cards shown and painted: ${median('ms')}, after ${opens[0].frames} frames`);
  console.log(`  the list scrolled to its end, painted, Latest gone: ${median('list')}, after ${opens[0].listFrames} frames; ${opens[0].articles} cards in the DOM`);
  console.log(`  and their steps' markdown parsed and painted: ${median('md')}`);
  console.log(`  longest task while opening: ${Math.max(...opens.map((o) => o.longest)).toFixed(0)} ms`);
  console.log('following: ok');
} catch (e) {
  failed = true;
  console.error(`conversation check failed: ${e.message}`);
} finally {
  await browser.close();
  preview.kill();
}
process.exit(failed ? 1 : 0);
