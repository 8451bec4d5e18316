#!/usr/bin/env node
// FOYA_OAUTH_OPENER for the conformance suite: Foya hands it the
// authorization URL instead of opening the browser. It fetches the URL and
// follows the redirects as a browser would; the suite's authorization server
// approves at once and redirects to Foya's loopback listener with the code.
const url = process.argv.at(-1);
if (process.argv.length < 3) {
  console.error('usage: open-url.mjs URL');
  process.exit(2);
}
try {
  const res = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(20000) });
  await res.arrayBuffer();
  console.error(`open-url.mjs: ${res.status} from ${res.url}`);
  process.exit(res.ok ? 0 : 1);
} catch (err) {
  console.error(`open-url.mjs: ${url}: ${err.message}`);
  process.exit(1);
}
