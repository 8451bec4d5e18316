// Measures the browser page's first paint under foya serve: for each run,
// a fresh Chromium context (nothing cached) opens FOYA_URL, and the script
// prints, in milliseconds from navigation start, the first contentful
// paint (Chromium's paint timing entry) and when the app's own shell had
// rendered (the sidebar's New session button). Not a test: nothing is
// asserted. docs/benchmarks.md gives the command.
//
//   FOYA_URL=<the URL foya serve prints> [FOYA_RUNS=3] node e2e/firstpaint.mjs
import { env, launch, timeout } from './lib.mjs';

const url = env('FOYA_URL');
const runs = Number(process.env.FOYA_RUNS || 3);
const browser = await launch();
try {
  for (let run = 1; run <= runs; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(url);
    const fcp = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const look = () => {
            const e = performance.getEntriesByName('first-contentful-paint')[0];
            if (e) resolve(e.startTime);
            else requestAnimationFrame(look);
          };
          look();
        }),
    );
    await page.getByRole('button', { name: /New session/ }).waitFor({ timeout });
    const app = await page.evaluate(() => performance.now());
    console.log(JSON.stringify({ run, firstContentfulPaintMs: Math.round(fcp), appShellRenderedMs: Math.round(app) }));
    await context.close();
  }
} finally {
  await browser.close();
}
