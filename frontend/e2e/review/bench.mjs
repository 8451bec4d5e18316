// The review panel's speed in Chromium: a session of 500 file changes
// (100 turns of 5), each diff 5,000 lines. It prints the panel's first
// paint (from the render call to the frame after the one that drew it),
// when all of its first page's 100 rows are drawn (the first paint holds
// the newest turns only),
// the time to show one 5,000-line diff, and the longest task while the
// panel is scrolled through that diff, up to 800 px a frame, never onto a
// page not drawn yet, to its end (every page of lines must be drawn on the
// way). Run from frontend/ after
// `npx vite build --config e2e/review/vite.config.ts`:
//   node e2e/review/bench.mjs
// RUNS=N repeats it (default 3). It checks what the page shows (the rows,
// the diff's lines) and exits 1 when that fails; the times are printed
// for docs/benchmarks.md, never asserted.
import { launch, preview } from './preview.mjs';

const runs = Number(process.env.RUNS || 3);
const port = Number(process.env.BENCH_PORT || 4182);
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
      // How long each idle callback (a page's highlighting) runs, itself
      // (its drawing follows in a task of its own).
      window.idleRuns = [];
      const ric = window.requestIdleCallback;
      window.requestIdleCallback = (f, o) =>
        ric((d) => {
          const t = performance.now();
          f(d);
          window.idleRuns.push(performance.now() - t);
        }, o);
    });
    await page.goto(url);
    await page.waitForFunction(() => typeof window.reviewPainted === 'number');
    const painted = await page.evaluate(() => window.reviewPainted);
    // The first paint holds the newest turns; the rest of the 100 rows follow.
    await page.waitForFunction(() => typeof window.reviewAllDrawn === 'number');
    const allDrawn = await page.evaluate(() => window.reviewAllDrawn);
    const review = page.getByRole('complementary', { name: 'Review changes' });
    check((await review.getByText('500 changes in 100 groups').count()) === 1, 'the panel does not list 500 changes');
    const row = review.getByRole('listitem', { name: /file0\.go/ }).first();
    const shown = await page.evaluate(() => performance.now());
    await row.getByRole('button', { name: 'Show diff' }).click();
    const table = row.getByRole('table').first();
    await table.waitFor();
    const diffShown = (await page.evaluate(() => performance.now())) - shown;
    // Scroll the panel through the whole diff, up to 800 px a frame, as a
    // wheel would, until its end is in view; every page of lines must have been
    // drawn on the way (only the pages near the view are in the page at
    // once, the others are empty boxes of their height).
    await page.evaluate(() => ((window.longTasks = []), (window.idleRuns = [])));
    const seen = await page.evaluate(async () => {
      const drawn = new Map();
      const note = () => {
        for (const el of document.querySelectorAll('.review [data-page][data-drawn="true"]')) {
          drawn.set(el.dataset.page, el.querySelectorAll('tr.diff-line').length);
        }
      };
      const pages = document.querySelectorAll('.review .diffview-table')[0].querySelectorAll(':scope > [data-page]');
      const last = pages[pages.length - 1];
      let box = document.querySelector('.review table');
      while (box && box.scrollHeight <= box.clientHeight + 1) box = box.parentElement;
      for (let n = 0; n < 4000 && box; n++) {
        note();
        if (last.getBoundingClientRect().bottom <= box.getBoundingClientRect().bottom) break;
        // Never onto a page not drawn yet: a person reading the diff
        // waits for it (it is drawn once it is within a screen of the view).
        const bottom = box.getBoundingClientRect().bottom;
        const next = [...pages].find((el) => el.dataset.drawn !== 'true' && el.getBoundingClientRect().bottom > bottom);
        const room = next ? Math.floor(next.getBoundingClientRect().top - bottom) : 800;
        const top = box.scrollTop;
        box.scrollTop += Math.max(0, Math.min(800, room));
        await new Promise((r) => requestAnimationFrame(() => r()));
        if (box.scrollTop === top && room >= 1) break;
      }
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
      note();
      return { pages: pages.length, drawn: drawn.size, lines: [...drawn.values()].reduce((a, b) => a + b, 0), now: document.querySelectorAll('.review tr.diff-line').length };
    });
    check(seen.drawn === seen.pages && seen.lines === 5000, `scrolling to the end drew ${seen.drawn} of the diff's ${seen.pages} pages, ${seen.lines} of its 5000 lines`);
    const tasks = await page.evaluate(() => window.longTasks);
    const idle = await page.evaluate(() => window.idleRuns);
    const longest = tasks.length === 0 ? 0 : Math.max(...tasks);
    // The pages in view are highlighted once the browser is idle after the
    // scroll: their tasks, counted apart, until every drawn page has a token.
    await page.evaluate(() => (window.longTasks = []));
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.review [data-page][data-drawn="true"]')].every((el) => el.querySelector('.token') !== null),
    );
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
    const after = await page.evaluate(() => window.longTasks);
    console.log(
      `run ${i + 1}: first paint ${painted.toFixed(0)} ms; all 100 rows drawn at ${allDrawn.toFixed(0)} ms; a 5,000-line diff shown in ${diffShown.toFixed(0)} ms; ` +
        `scrolling it to its end: ${tasks.length} long tasks, the longest ${longest.toFixed(0)} ms ` +
        `(${seen.drawn} pages drawn on the way, ${seen.now} lines in the page at the end); ` +
        `${idle.length} idle callbacks highlighting, the longest ${(idle.length === 0 ? 0 : Math.max(...idle)).toFixed(0)} ms; ` +
        `highlighting the pages in view after: ${after.length} long tasks, the longest ${(after.length === 0 ? 0 : Math.max(...after)).toFixed(0)} ms`,
    );
    await page.close();
  }
} finally {
  await browser.close();
  server.kill();
}
process.exit(failed ? 1 : 0);
