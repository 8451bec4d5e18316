// What shots.mjs and bench.mjs share: the review page (built with
// `npx vite build --config e2e/review/vite.config.ts`) served by vite
// preview, and Debian's Chromium (never downloaded).
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';

/**
 * preview starts `vite preview` of the review page on port, run from
 * frontend/, and resolves once it listens; it rejects, saying why, when
 * vite exits first (a port taken). Stop it with kill().
 */
export async function preview(port) {
  const proc = spawn(process.execPath, ['node_modules/vite/bin/vite.js', 'preview', '--config', 'e2e/review/vite.config.ts', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (b) => (stderr += b));
  await new Promise((resolve, reject) => {
    proc.stdout.on('data', (b) => String(b).includes(String(port)) && resolve());
    proc.on('exit', (code) => reject(new Error(`vite preview exited (${code}): ${stderr.trim()} (is port ${port} taken?)`)));
  });
  return proc;
}

/** launch starts Chromium ($FOYA_CHROMIUM, else Debian's) without its own sandbox or a GPU. */
export function launch() {
  return chromium.launch({
    executablePath: process.env.FOYA_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
}
