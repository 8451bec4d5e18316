// Browser end-to-end: a session's event stream, read in Chromium through
// fetch with the bearer token (as the app's FetchEventSource does; an
// EventSource cannot send the header), receives a run's events in order,
// across a page reload in the middle of the run, with no loss and no
// duplicate. Started by tests/e2e (Go), which passes:
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

// Runs in the page: a stream of the session's events after `after`, read
// through fetch with the token the page kept, that appends every event to
// sessionStorage, so that what the page saw survives the reload. A failure
// of the stream is kept apart (the reload itself breaks the first one).
function listen({ session, after }) {
  const seen = JSON.parse(sessionStorage.getItem('seen') ?? '[]');
  const note = (e) => {
    seen.push(e);
    sessionStorage.setItem('seen', JSON.stringify(seen));
  };
  const ac = new AbortController();
  window.__es = ac;
  (async () => {
    const r = await fetch(`/api/sessions/${session}/events?after=${after}`, {
      headers: { Authorization: `Bearer ${sessionStorage.getItem('foya.token')}` },
      signal: ac.signal,
    });
    if (!r.ok) return sessionStorage.setItem('streamError', `the stream answered ${r.status}: ${await r.text()}`);
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    let id = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buf += value;
      for (let i; (i = buf.indexOf('\n\n')) >= 0; ) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let data = null;
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('data: ')) data = line.slice(6);
        }
        if (data === null) continue;
        const ev = JSON.parse(data);
        if (String(ev.seq) !== id) note({ seq: -1, type: `id ${id} is not seq ${ev.seq}` });
        else note({ seq: ev.seq, type: ev.type, runId: ev.runId, data: ev.data });
      }
    }
  })().catch((e) => sessionStorage.setItem('streamError', `the stream failed: ${e.message}`));
}

const seenIn = (page) => page.evaluate(() => JSON.parse(sessionStorage.getItem('seen') ?? '[]'));

async function waitFor(page, what, pred) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const seen = await seenIn(page);
    if (pred(seen)) return seen;
    if (Date.now() > deadline) {
      const streamError = await page.evaluate(() => sessionStorage.getItem('streamError'));
      throw new Error(`no ${what} within ${timeout} ms; seen: ${JSON.stringify(seen.map((e) => `${e.seq} ${e.type}`))}; stream error: ${streamError}`);
    }
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

  // The token URL: the token kept for the tab, gone from the address bar,
  // and no cookie (a cookie would reach every server on 127.0.0.1).
  const token = new URL(url).hash.replace('#token=', '');
  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);
  await page.waitForFunction(() => !location.href.includes('token='), null, { timeout });
  check((await page.evaluate(() => sessionStorage.getItem('foya.token'))) === token, 'the page did not keep the token');
  check((await context.cookies()).length === 0, `cookies: ${JSON.stringify(await context.cookies())}`);

  // Subscribe first, then start the run from the page (bearer + Origin).
  await page.evaluate(() => ['seen', 'streamError'].forEach((k) => sessionStorage.removeItem(k)));
  await page.evaluate(listen, { session, after: 0 });
  const runId = await page.evaluate(async (session) => {
    const r = await fetch('/api/call/Run', {
      method: 'POST',
      headers: { Authorization: `Bearer ${sessionStorage.getItem('foya.token')}` },
      body: JSON.stringify([session, 'write hello.txt']),
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
  check(await page.evaluate(() => typeof window.__es === 'undefined'), 'the stream survived the reload');
  check((await page.evaluate(() => sessionStorage.getItem('foya.token'))) === token, 'the reload lost the token');
  check(!page.url().includes('token='), `the token is back in the address: ${page.url()}`);
  await page.evaluate(() => sessionStorage.removeItem('streamError'));
  const kept = await seenIn(page);
  const last = kept.length ? kept[kept.length - 1].seq : 0;
  await page.evaluate(listen, { session, after: last });
  await fetch(releaseUrl); // the model goes on

  const all = await waitFor(page, 'run.end', (s) => s.some((e) => e.type === 'run.end' && e.runId === runId));
  console.log(`after reload: ${all.slice(kept.length).map((e) => `${e.seq} ${e.type}`).join(', ')}`);

  // Every event once, in order, and just what the store holds.
  all.forEach((e, i) => check(e.seq === i + 1, `event ${i} has seq ${e.seq} (${e.type}); want ${i + 1}`));
  const stored = await page.evaluate(async (session) => {
    const r = await fetch('/api/call/Events', {
      method: 'POST',
      headers: { Authorization: `Bearer ${sessionStorage.getItem('foya.token')}` },
      body: JSON.stringify([session, 0]),
    });
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
