// Browser end-to-end: images pasted and dropped into the composer, as a
// person does it, controls found by role and name. Started by tests/e2e
// (Go, TestBrowserComposerImages), which passes:
//   FOYA_URL       the token URL foya serve printed
//   FOYA_TITLE     the session's title (its model takes images)
//   FOYA_SHOTS     the folder to save screenshots in
//   FOYA_CHROMIUM  the browser binary (never downloaded)
// The Go test then checks that the scripted model's request held the
// pasted image as an image_url part.
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, openSession, screenshots, transcriptSettled } from './lib.mjs';

const url = env('FOYA_URL');
const title = env('FOYA_TITLE');
const { shot } = screenshots(env('FOYA_SHOTS'));

// A 64×48 red PNG, drawn in the page.
const redPNG = () =>
  new Promise((resolve) => {
    const c = document.createElement('canvas');
    c.width = 64;
    c.height = 48;
    const g = c.getContext('2d');
    g.fillStyle = '#f00';
    g.fillRect(0, 0, 64, 48);
    c.toBlob(resolve, 'image/png');
  });

const browser = await launch();
let step = 'start';
let failed = false;
try {
  const { page, errors, main } = await openSession(browser, url, title);
  const log = page.getByRole('log', { name: 'Conversation', includeHidden: true });
  const form = main.getByRole('form', { name: 'Send a message' });
  const box = form.getByRole('textbox', { name: 'Message' });
  const chips = form.getByRole('list', { name: 'Attached images' });
  await box.waitFor();

  step = 'drop an image of over 50 MB: refused before upload, with the limit named';
  await form.evaluate((el) => {
    const dt = new DataTransfer();
    const big = new Uint8Array(52_300_000);
    big.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    dt.items.add(new File([big], 'screenshot.png', { type: 'image/png' }));
    el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await form.getByRole('alert').filter({ hasText: 'screenshot.png is 52.3 MB; images are limited to 50 MB' }).waitFor();
  check((await chips.count()) === 0, 'the refused image shows as a chip');

  step = 'drop a text file named like an image: refused by its content';
  await form.evaluate((el) => {
    const dt = new DataTransfer();
    dt.items.add(new File(['these are notes, not a picture'], 'notes.png', { type: 'image/png' }));
    el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await form.getByRole('alert').filter({ hasText: 'notes.png is not an image' }).waitFor();

  step = 'drop an image, then remove its chip with the Delete key';
  await form.evaluate(async (el, draw) => {
    const blob = await (0, eval)(draw)();
    const dt = new DataTransfer();
    dt.items.add(new File([blob], 'blue.png', { type: 'image/png' }));
    el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, `(${redPNG})`);
  const blue = chips.getByRole('listitem', { name: /^Image blue\.png/ });
  await blue.waitFor();
  await blue.focus();
  await page.keyboard.press('Delete');
  await blue.waitFor({ state: 'detached' });

  step = 'paste an image (Ctrl+V of a clipboard image)';
  await box.click();
  await box.evaluate(async (el, draw) => {
    const blob = await (0, eval)(draw)();
    const dt = new DataTransfer();
    dt.items.add(new File([blob], 'red.png', { type: 'image/png' }));
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, `(${redPNG})`);
  const red = chips.getByRole('listitem', { name: /^Image red\.png/ });
  await red.waitFor();
  await form.getByRole('button', { name: 'Remove image red.png' }).waitFor();
  await page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null);
  await shot(page, 'composer-images.png');

  step = 'send it; the transcript shows the image';
  await box.pressSequentially('What is in this image?');
  await page.keyboard.press('Enter');
  await log.getByText('A red rectangle.').waitFor();
  // The chips go once the Run call answers (which may be after the answer streamed).
  await chips.waitFor({ state: 'detached' });
  const sent = log.getByRole('region', { name: 'Your message' }).getByRole('img', { name: 'Image red.png' });
  await sent.waitFor();
  await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await sent.elementHandle());
  await shot(page, 'transcript-images.png');

  step = 'after a reload the transcript still shows it, read from the store';
  await page.reload();
  await page.getByRole('complementary', { name: 'Sessions sidebar' }).getByRole('button', { name: title, exact: true }).click();
  await transcriptSettled(log); // until then a row's text is in the page twice
  await log.getByText('A red rectangle.').waitFor();
  const again = log.getByRole('region', { name: 'Your message' }).getByRole('img', { name: 'Image red.png' });
  await again.waitFor();
  await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await again.elementHandle());

  check(errors.length === 0, `page errors: ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(`step "${step}": ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
