// Browser end-to-end: a real EventSource in Chromium receives a run's
// events in order, across a page reload in the middle of the run, with no
// loss and no duplicate. Started by tests/e2e (Go), which passes:
//   FOYA_URL          the token URL foya serve printed
//   FOYA_SESSION      a session whose provider is the scripted model
//   FOYA_RELEASE_URL  fetched (from node) to let the held model go on
//   FOYA_CHROMIUM     the browser binary (never downloaded)
// Exits 0 when every check holds, 1 with the reason otherwise.
import { chromium } from 'playwright-core';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this script through go test ./tests/e2e/`);
  return v;
};
const url = env('FOYA_URL');
const session = env('FOYA_SESSION');
const releaseUrl = env('FOYA_RELEASE_URL');
const timeout = 60_000;

function check(ok, message) {
  if (!ok) throw new Error(message);
}

// Runs in the page: an EventSource on the session's events after `after`
// that appends every event to sessionStorage, so that what the page saw
// survives the reload.
function listen({ session, after }) {
  const seen = JSON.parse(sessionStorage.getItem('seen') ?? '[]');
  const es = new EventSource(`/api/sessions/${session}/events?after=${after}`);
  window.__es = es;
  es.onmessage = (m) => {
    const ev = JSON.parse(m.data);
    if (String(ev.seq) !== m.lastEventId) {
      seen.push({ seq: -1, type: `id ${m.lastEventId} is not seq ${ev.seq}` });
    } else {
      seen.push({ seq: ev.seq, type: ev.type, runId: ev.runId, data: ev.data });
    }
    sessionStorage.setItem('seen', JSON.stringify(seen));
  };
}

const seenIn = (page) => page.evaluate(() => JSON.parse(sessionStorage.getItem('seen') ?? '[]'));

async function waitFor(page, what, pred) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const seen = await seenIn(page);
    if (pred(seen)) return seen;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeout} ms; seen: ${JSON.stringify(seen.map((e) => `${e.seq} ${e.type}`))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const browser = await chromium.launch({
  executablePath: process.env.FOYA_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
let failed = false;
try {
  const context = await browser.newContext();
  const page = await context.newPage();

  // The token URL: a cookie, and the token gone from the address bar.
  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);
  check(!page.url().includes('token='), `the token is still in the address: ${page.url()}`);
  const cookie = (await context.cookies()).find((c) => c.name === 'foya_auth');
  check(cookie && cookie.httpOnly && cookie.sameSite === 'Strict', `cookie: ${JSON.stringify(cookie)}`);
  check(!(await page.evaluate(() => document.cookie)).includes('foya_auth'), 'the page script can read the cookie');

  // Subscribe first, then start the run from the page (cookie + Origin).
  await page.evaluate(() => sessionStorage.clear());
  await page.evaluate(listen, { session, after: 0 });
  const runId = await page.evaluate(async (session) => {
    const r = await fetch('/api/call/Run', {
      method: 'POST', credentials: 'same-origin', body: JSON.stringify([session, 'write hello.txt']),
    });
    const body = await r.json();
    if (!r.ok) throw new Error(`Run: ${r.status} ${JSON.stringify(body)}`);
    return body;
  }, session);
  check(typeof runId === 'string' && runId !== '', `Run returned ${JSON.stringify(runId)}`);

  // The model holds after its first line: the run is in the middle.
  const before = await waitFor(page, 'tool.begin', (s) => s.some((e) => e.type === 'tool.begin'));
  console.log(`before reload: ${before.map((e) => `${e.seq} ${e.type}`).join(', ')}`);

  await page.reload();
  check(await page.evaluate(() => typeof window.__es === 'undefined'), 'the EventSource survived the reload');
  const kept = await seenIn(page);
  const last = kept.length ? kept[kept.length - 1].seq : 0;
  await page.evaluate(listen, { session, after: last });
  await fetch(releaseUrl); // the model goes on

  const all = await waitFor(page, 'run.end', (s) => s.some((e) => e.type === 'run.end' && e.runId === runId));
  console.log(`after reload: ${all.slice(kept.length).map((e) => `${e.seq} ${e.type}`).join(', ')}`);

  // Every event once, in order, and just what the store holds.
  all.forEach((e, i) => check(e.seq === i + 1, `event ${i} has seq ${e.seq} (${e.type}); want ${i + 1}`));
  const stored = await page.evaluate(async (session) => {
    const r = await fetch('/api/call/Events', { method: 'POST', credentials: 'same-origin', body: JSON.stringify([session, 0]) });
    return r.json();
  }, session);
  check(stored.length === all.length, `the page saw ${all.length} events; the store has ${stored.length}`);
  stored.forEach((e, i) => check(e.type === all[i].type, `event ${i + 1}: page saw ${all[i].type}, store has ${e.type}`));
  const end = all[all.length - 1];
  check(end.type === 'run.end' && end.data.status === 'completed', `last event ${JSON.stringify(end)}; want run.end completed`);
  check(all.some((e) => e.type === 'tool.end' && e.data.name === 'write' && e.data.status === 'done'), 'no tool.end of the write');
  console.log(`ok: ${all.length} events, ${kept.length} before the reload, in order, none twice`);
} catch (err) {
  failed = true;
  console.error(`FAIL: ${err.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
