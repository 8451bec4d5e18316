// Browser end-to-end: the task list in the Background panel, and the
// layout at 1024x640 and on a 4K screen (3840x2160, device scale 1 and
// 2). Started by tests/e2e (Go), which passes:
//   FOYA_URL      the token URL foya serve printed
//   FOYA_TITLE    a session whose run wrote a task list and a file
//   FOYA_WAITING  a session in Manual whose run waits for a write's approval
//   FOYA_LONG     a session whose title is too long for the sidebar
//   FOYA_SHOTS    the folder to save screenshots in
//   FOYA_CHROMIUM the browser binary (never downloaded)
// Each layout is checked on screen: nothing overflows the window, the main
// regions (sessions sidebar, session header, conversation, composer, side
// panel) are inside it, side by side without overlapping, of a usable size,
// with text of a readable size, the side panel as high as the body beside
// the conversation; a long session title ends in an ellipsis before the
// row's actions, in full in its tooltip and name; an approval request
// with a long preview, inline at its call, has nothing scrolling inside it
// and one Tab brings its Allow once into view; every control Tab reaches
// shows its focus; the sidebar's footer shows the whole version line; a
// screenshot of each is saved.
// Exits 0 when every check holds, 1 with the reason otherwise.
import { check, env, launch, pageErrors, screenshots, timeout } from './lib.mjs';


// boxOf waits for loc's box: the transcript draws its rows again as it
// measures them (a larger window, more rows), so a row can be away for a
// frame between finding it and reading its box.
async function boxOf(loc) {
  const end = Date.now() + timeout;
  for (;;) {
    const b = await loc.boundingBox().catch(() => null);
    if (b !== null) return b;
    if (Date.now() > end) return null;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const url = env('FOYA_URL');
const title = env('FOYA_TITLE');
const waiting = env('FOYA_WAITING');
const long = env('FOYA_LONG');
const shots = env('FOYA_SHOTS');
const { shot, saved } = screenshots(shots);

// The run's task list (tests/e2e/layout_test.go).
const tasks = [
  ['Read the notes', 'Completed'],
  ['Write the summary', 'In progress'],
  ['Check the links', 'Pending'],
];

async function open(browser, viewport, deviceScaleFactor) {
  const context = await browser.newContext({ viewport, deviceScaleFactor });
  const page = await context.newPage();
  page.setDefaultTimeout(timeout);
  const errors = pageErrors(page);
  await page.goto(url);
  await page.getByRole('complementary', { name: 'Sessions sidebar' }).getByRole('button', { name: title, exact: true }).click();
  await page.getByRole('main').getByRole('heading', { level: 2, name: title }).waitFor();
  await page.getByRole('log', { name: 'Conversation' }).getByText('Planned and wrote it.').waitFor();
  return { page, context, errors };
}

// layout checks the page's main regions against its viewport; panel names
// the side panel that is open.
async function layout(page, what, panel) {
  const m = await page.evaluate((panel) => {
    const box = (el) => {
      if (el === null) return null;
      const r = el.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height };
    };
    const q = (sel) => document.querySelector(sel);
    const px = (el) => (el === null ? 0 : parseFloat(getComputedStyle(el).fontSize));
    const byLabel = (label) => q(`[aria-label="${label}"]`);
    const panelEl = panel === 'Review changes' ? byLabel('Review changes') : q('section[aria-labelledby="background-h"]');
    return {
      // The panel's view against the side panel it is in, and the body
      // (conversation | side panel) both are in.
      fill: panelEl === null ? null : { view: box(panelEl), side: box(panelEl.parentElement), body: box(q('.session-body')) },
      vw: window.innerWidth,
      vh: window.innerHeight,
      sw: document.documentElement.scrollWidth,
      sh: document.documentElement.scrollHeight,
      regions: {
        sidebar: box(byLabel('Sessions sidebar')),
        header: box(q('.session-header')),
        conversation: box(byLabel('Conversation')),
        composer: box(byLabel('Send a message')),
        panel: box(panelEl),
      },
      // The conversation's column: a card's width (lines of a readable length).
      card: q('[aria-label="Conversation"] article')?.getBoundingClientRect().width ?? 0,
      text: {
        message: px(q('[aria-label="Conversation"] p')),
        input: px(byLabel('Message')),
        sidebar: px(q('[aria-label="Sessions sidebar"] li')),
        panel: px(panelEl?.querySelector('p, li') ?? null),
      },
      // Wider than any of the regions' own overflow: an element that sticks
      // out of the window (not scrolled inside a region).
      outside: [...document.querySelectorAll('body *')]
        .filter((el) => {
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.height === 0) return false;
          let p = el.parentElement;
          while (p !== null) {
            const o = getComputedStyle(p).overflow;
            if (o.includes('auto') || o.includes('hidden') || o.includes('scroll')) return false;
            p = p.parentElement;
          }
          return r.right > window.innerWidth + 1 || r.bottom > window.innerHeight + 1 || r.left < -1;
        })
        .slice(0, 5)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
    };
  }, panel);
  const f = (b) => `${b.left.toFixed(0)},${b.top.toFixed(0)} ${b.width.toFixed(0)}x${b.height.toFixed(0)}`;
  console.log(`${what}: ${Object.entries(m.regions).map(([k, b]) => `${k} ${b === null ? 'missing' : f(b)}`).join('; ')}; card ${m.card.toFixed(0)} px wide; text px ${JSON.stringify(m.text)}`);
  check(m.sw <= m.vw && m.sh <= m.vh, `${what}: the page overflows the window: ${m.sw}x${m.sh} in ${m.vw}x${m.vh}`);
  check(m.outside.length === 0, `${what}: elements outside the window: ${m.outside.join(', ')}`);
  for (const [k, b] of Object.entries(m.regions)) {
    check(b !== null, `${what}: no ${k}`);
    check(b.left >= -0.5 && b.top >= -0.5 && b.right <= m.vw + 0.5 && b.bottom <= m.vh + 0.5, `${what}: the ${k} (${f(b)}) is not inside the window ${m.vw}x${m.vh}`);
  }
  const { sidebar, header, conversation, composer, panel: side } = m.regions;
  check(sidebar.right <= conversation.left + 0.5 && sidebar.right <= header.left + 0.5, `${what}: the sidebar overlaps the session`);
  check(conversation.right <= side.left + 0.5, `${what}: the conversation (${f(conversation)}) overlaps the side panel (${f(side)})`);
  check(header.bottom <= conversation.top + 0.5 && conversation.bottom <= composer.top + 0.5, `${what}: header, conversation and composer are not stacked`);
  // Usable: the conversation keeps most of the room, the panel and the
  // sidebar a readable column each, the composer a few lines.
  check(conversation.width >= 0.35 * m.vw || conversation.width >= 480, `${what}: the conversation is ${conversation.width.toFixed(0)} px wide`);
  check(conversation.height >= 0.4 * m.vh, `${what}: the conversation is ${conversation.height.toFixed(0)} px high in ${m.vh}`);
  check(side.width >= 280 && sidebar.width >= 180, `${what}: side panel ${side.width.toFixed(0)} px, sidebar ${sidebar.width.toFixed(0)} px wide`);
  check(m.card > 0 && m.card <= 1100, `${what}: a card in the conversation is ${m.card.toFixed(0)} px wide; want a column of readable lines (at most 1100)`);
  check(composer.height >= 60, `${what}: the composer is ${composer.height.toFixed(0)} px high`);
  for (const [k, v] of Object.entries(m.text)) check(v >= 12, `${what}: ${k} text is ${v} px`);
  // The panel fills the height: its view from the header to the window's
  // foot, so the line between conversation and panel runs all the way.
  const { view, side: sideBox, body } = m.fill;
  check(
    Math.abs(view.top - body.top) <= 1.5 && Math.abs(view.bottom - body.bottom) <= 1.5 && Math.abs(sideBox.bottom - body.bottom) <= 1.5,
    `${what}: the ${panel} panel (${f(view)}) does not fill the height beside the conversation (${f(body)})`,
  );
  check(body.bottom >= m.vh - 1.5, `${what}: the session's body ends at ${body.bottom.toFixed(0)} in a window ${m.vh} high`);
  return m;
}

// sidebarTitle opens the session with the long title and checks its row in
// the sidebar: the title is cut with an ellipsis before the rename and
// delete buttons (shown while the row has focus or the pointer), which
// cover none of it, and it is whole in the tooltip and the accessible name.
async function sidebarTitle(page) {
  const sidebar = page.getByRole('complementary', { name: 'Sessions sidebar' });
  const item = sidebar.getByRole('button', { name: long, exact: true });
  await item.click();
  await page.getByRole('main').getByRole('heading', { level: 2, name: long }).waitFor();
  await item.focus();
  const m = await item.evaluate((el) => {
    const t = el.querySelector('.session-title');
    const cs = getComputedStyle(t);
    const r = t.getBoundingClientRect();
    const actions = el.parentElement.querySelector('.session-actions');
    const a = actions.getBoundingClientRect();
    return {
      label: el.getAttribute('aria-label'),
      tooltip: el.getAttribute('title'),
      overflow: cs.textOverflow,
      cut: t.scrollWidth > t.clientWidth,
      textRight: r.right - parseFloat(cs.paddingRight),
      actionsLeft: a.left,
      actionsShown: getComputedStyle(actions).opacity === '1',
    };
  });
  check(m.label === long && m.tooltip === long, `the long title's name is ${JSON.stringify(m.label)} and tooltip ${JSON.stringify(m.tooltip)}; want it whole in both`);
  check(m.cut && m.overflow === 'ellipsis', `the long title is ${m.cut ? '' : 'not '}cut, with text-overflow ${m.overflow}; want it cut with an ellipsis`);
  check(m.actionsShown, 'the rename and delete buttons are not shown while the open session has focus');
  check(m.textRight <= m.actionsLeft + 0.5, `the title's text runs to ${m.textRight.toFixed(1)}, under the buttons from ${m.actionsLeft.toFixed(1)}`);
  await shot(page, 'sidebar-long-title.png');
}

// focusRings tabs through the page (sidebar, header, conversation, review
// panel, and round again) and checks that every control Tab reaches shows
// it has focus: an outline or a ring drawn as a shadow.
async function focusRings(page) {
  const missing = new Set();
  let reached = 0;
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const a = document.activeElement;
      if (a === null || a === document.body) return null;
      const cs = getComputedStyle(a);
      const ring = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none';
      return { ring, what: `${a.tagName.toLowerCase()}.${a.className} "${a.getAttribute('aria-label') ?? a.textContent.trim().slice(0, 30)}"` };
    });
    if (f === null) continue;
    reached++;
    if (!f.ring) missing.add(f.what);
  }
  check(reached >= 10, `Tab reached only ${reached} controls`);
  check(missing.size === 0, `no visible focus on: ${[...missing].join(', ')}`);
}

// footer checks the sidebar's footer: the version line shows its whole
// text (not cut with an ellipsis), and it and the buttons beside or below
// it are inside the sidebar without overlapping.
async function footer(page, what) {
  const sidebar = page.getByRole('complementary', { name: 'Sessions sidebar' });
  const about = sidebar.getByRole('button', { name: /about Foya/ });
  const f = await about.evaluate((el) => {
    const box = (e) => e.getBoundingClientRect();
    const side = box(el.closest('aside'));
    const buttons = [el, ...el.parentElement.querySelectorAll('.sidebar-footer-actions button')].map(box);
    const overlap = buttons.some((a, i) => buttons.some((b, j) => i < j && a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5));
    const inside = buttons.every((b) => b.left >= side.left - 0.5 && b.right <= side.right + 0.5);
    return { text: el.textContent, cut: el.scrollWidth > el.clientWidth + 0.5, title: el.title, overlap, inside, count: buttons.length };
  });
  check(!f.cut, `${what}: the version line "${f.text}" is cut short`);
  check(/^Foya \S/.test(f.title), `${what}: the version line has no tooltip with the version (${JSON.stringify(f.title)})`);
  check(f.count === 4 && !f.overlap && f.inside, `${what}: the footer's ${f.count} buttons overlap or leave the sidebar`);
}

const browser = await launch();
let failed = false;
let step = 'start';
try {
  // The task list: each task with its status in words, the current one marked.
  step = 'the task list';
  {
    const { page, context, errors } = await open(browser, { width: 1024, height: 640 });
    const main = page.getByRole('main');
    await main.getByRole('button', { name: 'Background' }).click();
    const section = main.getByRole('region', { name: 'Tasks' });
    const list = section.getByRole('list', { name: 'Tasks of this session' });
    await list.waitFor();
    const items = list.getByRole('listitem');
    check((await items.count()) === tasks.length, `${await items.count()} tasks listed; want ${tasks.length}`);
    for (const [i, [content, status]] of tasks.entries()) {
      const name = await items.nth(i).getAttribute('aria-label');
      check(name === `${content}: ${status}`, `task ${i + 1} is named ${JSON.stringify(name)}; want "${content}: ${status}"`);
    }
    check((await items.nth(1).getAttribute('aria-current')) === 'step', 'the task in progress is not marked as the current step');
    await section.getByRole('status').getByText(/1 of 3/).waitFor();
    await shot(page, 'tasks-background-panel.png');

    step = 'a long session title at 1024x640';
    await sidebarTitle(page);
    await page.getByRole('complementary', { name: 'Sessions sidebar' }).getByRole('button', { name: title, exact: true }).click();
    await page.getByRole('main').getByRole('heading', { level: 2, name: title }).waitFor();
    await page.getByRole('log', { name: 'Conversation' }).getByText('Planned and wrote it.').waitFor();
    await list.waitFor();

    step = 'layout at 1024x640';
    await layout(page, '1024x640, background panel', 'Background commands');
    await shot(page, 'layout-1024x640-background.png');
    await main.getByRole('button', { name: 'Review' }).click();
    await main.getByRole('complementary', { name: 'Review changes' }).getByRole('listitem', { name: /^summary\.md, / }).waitFor();
    await layout(page, '1024x640, review panel', 'Review changes');

    step = 'focus rings at 1024x640';
    await focusRings(page);
    await shot(page, 'layout-1024x640-review.png');
    check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
    await context.close();
  }

  // A 4K screen, at device scale 1 (a large monitor) and 2 (a HiDPI one:
  // 1920x1080 CSS pixels would be the usual; a scale of 2 at 3840x2160 CSS
  // pixels is what a window maximised on an 8K-class setting would see).
  for (const scale of [1, 2]) {
    step = `layout at 3840x2160, scale ${scale}`;
    const { page, context, errors } = await open(browser, { width: 3840, height: 2160 }, scale);
    const main = page.getByRole('main');
    await main.getByRole('button', { name: 'Review' }).click();
    await main.getByRole('complementary', { name: 'Review changes' }).getByRole('listitem', { name: /^summary\.md, / }).waitFor();
    await layout(page, `3840x2160 at scale ${scale}, review panel`, 'Review changes');
    await shot(page, `layout-3840x2160-scale${scale}-review.png`);
    await main.getByRole('button', { name: 'Background' }).click();
    await main.getByRole('region', { name: 'Tasks' }).getByRole('list', { name: 'Tasks of this session' }).waitFor();
    await layout(page, `3840x2160 at scale ${scale}, background panel`, 'Background commands');
    await shot(page, `layout-3840x2160-scale${scale}-background.png`);
    check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
    await context.close();
  }
  // An approval request with a 40-line preview, inline at its call: as
  // wide as the window allows, nothing scrolling inside it (the transcript
  // is the one scroller), focused, and one Tab brings Allow once into view;
  // at the smallest size and on 4K.
  for (const [viewport, scale] of [[{ width: 1024, height: 640 }, 1], [{ width: 1280, height: 800 }, 1], [{ width: 3840, height: 2160 }, 1]]) {
    step = `the approval request at ${viewport.width}x${viewport.height}`;
    const context = await browser.newContext({ viewport, deviceScaleFactor: scale });
    const page = await context.newPage();
    page.setDefaultTimeout(timeout);
    await page.goto(url);
    await page.getByRole('complementary', { name: 'Sessions sidebar' }).getByRole('button', { name: waiting, exact: true }).click();
    const request = page.getByRole('log', { name: 'Conversation' }).getByRole('region', { name: 'Write a file?' });
    await request.waitFor();
    const d = await boxOf(request);
    check(d.x >= 0 && d.x + d.width <= viewport.width + 0.5, `${step}: the request (${JSON.stringify(d)}) is wider than the window`);
    const inner = await request.evaluate((root) =>
      [root, ...root.querySelectorAll('*')]
        .filter((el) => {
          const s = getComputedStyle(el);
          return (/auto|scroll/.test(s.overflowY) && el.scrollHeight > el.clientHeight + 1) || (/auto|scroll/.test(s.overflowX) && el.scrollWidth > el.clientWidth + 1);
        })
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
    );
    check(inner.length === 0, `${step}: these scroll inside the request: ${inner.join(', ')}`);
    await request.locator('xpath=self::*[@data-armed="true"]').waitFor();
    check(await request.evaluate((el) => el === document.activeElement), `${step}: the request does not have focus`);
    await page.keyboard.press('Tab');
    const allow = request.getByRole('button', { name: 'Allow once' });
    check(await allow.evaluate((el) => el === document.activeElement), `${step}: Tab from the request does not reach Allow once`);
    const r = await boxOf(allow);
    check(r !== null && r.y >= 0 && r.y + r.height <= viewport.height, `${step}: Allow once (${JSON.stringify(r)}) is not in view once focused`);
    await shot(page, `layout-${viewport.width}x${viewport.height}-approval.png`);
    step = `the sidebar's footer at ${viewport.width}x${viewport.height}`;
    await footer(page, step);
    await context.close();
  }

  console.log("ok: the task list in the Background panel; the layout at 1024x640 and 3840x2160 (scale 1 and 2); the inline approval request and the sidebar's footer at 1024x640, 1280x800 and 3840x2160");
} catch (err) {
  failed = true;
  console.error(`FAIL at "${step}": ${err.message}`);
} finally {
  console.log(`screenshots:\n${saved.join('\n')}`);
  await browser.close();
}
process.exit(failed ? 1 : 0);
