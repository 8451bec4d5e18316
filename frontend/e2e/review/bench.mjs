// The review panel's speed in Chromium: a session of 500 file changes
// (100 turns of 5), each diff 5,000 lines. It prints the panel's first
// paint (from the render call to the frame after the one that drew it),
// the time to show one 5,000-line diff, and the longest task while the
// panel is scrolled through that diff, up to 800 px a frame, never past
// the end of what is drawn, until every page of lines is drawn. Run from frontend/ after
// `npx vite build --config e2e/review/vite.config.ts`:
//   node e2e/review/bench.mjs
// RUNS=N repeats it (default 3). It checks what the page shows (the rows,
// the diff's lines) and exits 1 when that fails; the times are printed
// for docs/benchmarks.md, never asserted.
import { launch, preview } from './preview.mjs';

const runs = Number(process.env.RUNS || 3);
const port = 4182;
const url = `http://127.0.0.1:${port}/?bench=1`;
const server = await preview(port);
const browser = await launch();
let failed = false;
const check = (ok, msg) => {
  if (!ok) {
    failed = true;
    console.error(`review bench: ${msg}`);
  }
};
try {
  for (let i = 0; i < runs; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(() => {
      window.longTasks = [];
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) window.longTasks.push(e.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(url);
    await page.waitForFunction(() => typeof window.reviewPainted === 'number');
    const painted = await page.evaluate(() => window.reviewPainted);
    const review = page.getByRole('complementary', { name: 'Review changes' });
    check((await review.getByText('500 changes in 100 groups').count()) === 1, 'the panel does not list 500 changes');
    const row = review.getByRole('listitem', { name: /file0\.go/ }).first();
    const shown = await page.evaluate(() => performance.now());
    await row.getByRole('button', { name: 'Show diff' }).click();
    const table = row.getByRole('table');
    await table.waitFor();
    const diffShown = (await page.evaluate(() => performance.now())) - shown;
    // Scroll the panel through the whole diff, 800 px a frame, as a wheel
    // would, until every page of lines is drawn.
    await page.evaluate(() => (window.longTasks = []));
    let lines = 0;
    for (let n = 0; n < 400 && lines < 5000; n++) {
      lines = await page.evaluate(async () => {
        const rows = () => document.querySelectorAll('.review tr.diff-line').length;
        let box = document.querySelector('.review table');
        while (box && box.scrollHeight <= box.clientHeight + 1) box = box.parentElement;
        for (let i = 0; i < 10 && box; i++) {
          // Never past the end of the diff drawn so far: a person reading
          // it reaches that end, and the next page comes.
          const more = document.querySelector('.review .diffview-more');
          const room = more ? more.getBoundingClientRect().top - box.getBoundingClientRect().bottom + 100 : 800;
          box.scrollTop += Math.max(0, Math.min(800, room));
          await new Promise((r) => requestAnimationFrame(() => r()));
        }
        return rows();
      });
    }
    lines = await table.locator('tr.diff-line').count();
    check(lines === 5000, `after scrolling to the end, ${lines} of the diff's 5000 lines are drawn`);
    const tasks = await page.evaluate(() => window.longTasks);
    const longest = tasks.length === 0 ? 0 : Math.max(...tasks);
    console.log(
      `run ${i + 1}: first paint ${painted.toFixed(0)} ms; a 5,000-line diff shown in ${diffShown.toFixed(0)} ms; ` +
        `scrolling it to its end: ${tasks.length} long tasks, the longest ${longest.toFixed(0)} ms`,
    );
    await page.close();
  }
} finally {
  await browser.close();
  server.kill();
}
process.exit(failed ? 1 : 0);
