// Screenshots of the review panel (e2e/review/main.tsx) at 1280x800 and
// 1920x1080, light and dark, with the edit's diff open; and one with the
// panel taking the whole window. Run from frontend/ after
// `npx vite build --config e2e/review/vite.config.ts`:
//   REVIEW_SHOTS=../docs/img node e2e/review/shots.mjs
// It starts `npx vite preview` itself; it checks on the way that the diff
// shows removed lines before added ones and marks words in the lines
// changed a little only, and exits 1, saying why, when that fails.
import { launch, preview } from './preview.mjs';

const shots = process.env.REVIEW_SHOTS || '.';
const port = 4181;
const url = `http://127.0.0.1:${port}/`;
const server = await preview(port);
const browser = await launch();
let failed = false;
const check = (ok, msg) => {
  if (!ok) {
    failed = true;
    console.error(`review shots: ${msg}`);
  }
};
try {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 1920, height: 1080 }]) {
    for (const theme of ['light', 'dark']) {
      const page = await browser.newPage({ viewport });
      await page.goto(`${url}?theme=${theme}`);
      const review = page.getByRole('complementary', { name: 'Review changes' });
      const row = review.getByRole('listitem', { name: /open\.go/ });
      await row.getByRole('button', { name: 'Show diff' }).click();
      const table = review.getByRole('table', { name: 'Diff of backend/store/open.go' });
      await table.waitFor();
      const lines = await table.locator('td.diff-code-delete, td.diff-code-insert').evaluateAll((tds) =>
        tds.map((td) => (td.classList.contains('diff-code-delete') ? '-' : '+')).join(''),
      );
      check(lines === '---+++-+-+++++', `${viewport.width}x${viewport.height} ${theme}: the lines' order is ${lines}`);
      const marks = await table.locator('.diff-code-edit').allTextContents();
      check(!marks.some((m) => m.includes('WAL')), `${viewport.width}x${viewport.height} ${theme}: a rewritten line has word marks: ${JSON.stringify(marks)}`);
      const sep = page.getByRole('separator', { name: 'Resize the review panel' });
      const w = Number(await sep.getAttribute('aria-valuenow'));
      const box = await page.locator('.side-panel').boundingBox();
      check(Math.abs(box.width - w) <= 1, `${viewport.width}x${viewport.height} ${theme}: the separator says ${w} px, the panel is ${box.width} px`);
      console.log(`${viewport.width}x${viewport.height} ${theme}: panel ${box.width.toFixed(0)} px wide; marks ${JSON.stringify(marks)}`);
      await page.screenshot({ path: `${shots}/review-${viewport.width}x${viewport.height}-${theme}.png` });
      if (viewport.width === 1920 && theme === 'dark') {
        await review.getByRole('button', { name: 'Split' }).first().click();
        await review.getByRole('button', { name: 'Full window' }).click();
        await page.screenshot({ path: `${shots}/review-${viewport.width}x${viewport.height}-${theme}-full-split.png` });
      }
      if (viewport.width === 1280 && theme === 'light') {
        // Narrower by keyboard, lines scrolled instead of wrapped.
        await sep.focus();
        for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
        await review.getByRole('button', { name: 'Wrap lines' }).first().click();
        // Headless Chromium hides scroll bars: check that the lines scroll.
        const scroll = await review.locator('.diffview-table').first().evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth }));
        check(scroll.sw > scroll.cw, `unwrapped lines do not scroll: ${JSON.stringify(scroll)}`);
        console.log(`unwrapped: the diff scrolls ${scroll.sw} px in ${scroll.cw}`);
        await page.screenshot({ path: `${shots}/review-${viewport.width}x${viewport.height}-${theme}-nowrap.png` });
      }
      await page.close();
    }
  }
} finally {
  await browser.close();
  server.kill();
}
console.log(`screenshots in ${shots}`);
process.exit(failed ? 1 : 0);
