// Browser end-to-end: signing in to an HTTP MCP server in Settings → MCP
// servers. Started by tests/e2e (Go, TestBrowserMCPSignIn), which adds the
// server "remote" (behind a test OAuth authorization server whose first
// answer carries a forged state) and passes:
//   FOYA_URL         the token URL foya serve printed
//   FOYA_SHOTS       the folder to save screenshots in
//   FOYA_CHROMIUM    the browser binary (never downloaded)
// foya serve runs with FOYA_OAUTH_OPENER set to a program that follows the
// authorization page as a browser would.
// Exits 0 when every check holds, 1 with the reason otherwise.
import { api, check, env, launch, newPage, screenshots } from './lib.mjs';

const url = env('FOYA_URL');
const { shot, saved } = screenshots(env('FOYA_SHOTS'));

const stateOf = async (page) => (await api(page, 'MCPServers', '')).servers.find((s) => s.name === 'remote');

const browser = await launch();
let failed = false;
try {
  const { page, errors } = await newPage(browser);
  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);

  await page.getByRole('complementary', { name: 'Sessions sidebar' }).getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'MCP servers' }).click();
  const item = settings.getByRole('list', { name: 'MCP servers' }).getByRole('listitem', { name: 'remote' });
  await item.getByText('Sign-in needed').waitFor();
  await item.getByText('Why it failed: the server needs you to sign in').waitFor();
  let s = await stateOf(page);
  check(s.state === 'failed' && s.signIn === 'sign-in-needed', `before: ${JSON.stringify(s)}`);
  await shot(page, 'mcp-oauth-01-needed.png');

  // The first answer carries a forged state: refused, with the reason.
  await item.getByRole('button', { name: 'Sign in to remote' }).click();
  await settings.getByRole('alert').filter({ hasText: 'Could not sign in to remote' }).filter({ hasText: 'another state than the one Foya sent' }).waitFor();
  await item.getByText('Sign-in failed: sign in to').waitFor();
  s = await stateOf(page);
  check(s.signIn === 'error' && s.state !== 'ready', `after the forged answer: ${JSON.stringify(s)}`);
  await shot(page, 'mcp-oauth-02-wrong-state.png');

  // The second signs in: the server is ready with its tools.
  await item.getByRole('button', { name: 'Sign in to remote' }).click();
  await settings.getByRole('status').filter({ hasText: 'Signed in to MCP server remote.' }).waitFor();
  await item.getByText('Signed in').waitFor();
  await item.getByText('Ready').waitFor();
  s = await stateOf(page);
  check(s.state === 'ready' && s.signIn === 'signed-in' && s.tools > 0, `after signing in: ${JSON.stringify(s)}`);
  await shot(page, 'mcp-oauth-03-signed-in.png');

  // Sign out: a sign-in is needed again.
  await item.getByRole('button', { name: 'Sign out of remote' }).click();
  await settings.getByRole('status').filter({ hasText: 'Signed out of MCP server remote.' }).waitFor();
  await item.getByText('Sign-in needed').waitFor();
  s = await stateOf(page);
  check(s.signIn === 'sign-in-needed' && s.state !== 'ready', `after signing out: ${JSON.stringify(s)}`);
  await shot(page, 'mcp-oauth-04-signed-out.png');

  check(errors.length === 0, `errors on the page: ${errors.join('; ')}`);
  console.log(`MCP sign-in ok; screenshots: ${saved.join(', ')}`);
} catch (err) {
  failed = true;
  console.error(`MCP sign-in failed: ${err.stack || err}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
