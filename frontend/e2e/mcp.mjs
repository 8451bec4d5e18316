// Browser end-to-end: Settings → MCP servers, as a person uses it. Started
// by tests/e2e (Go, TestBrowserMCPServerSettings), which passes:
//   FOYA_URL         the token URL foya serve printed
//   FOYA_MCP_SERVER  the example MCP server's binary (stdio)
//   FOYA_SHOTS       the folder to save screenshots in
//   FOYA_CHROMIUM    the browser binary (never downloaded)
// Each step is checked on screen and in the store (MCPServers).
// Exits 0 when every check holds, 1 with the reason otherwise.
import { api, check, env, launch, newPage, screenshots } from './lib.mjs';

const url = env('FOYA_URL');
const command = env('FOYA_MCP_SERVER');
const { shot, saved } = screenshots(env('FOYA_SHOTS'));

const browser = await launch();
let failed = false;
try {
  const { page, errors } = await newPage(browser);
  const resp = await page.goto(url);
  check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);

  await page.getByRole('complementary', { name: 'Sessions sidebar' }).getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'MCP servers' }).click();
  await settings.getByText('No MCP servers yet').waitFor();

  // Add the server by its command.
  await settings.getByRole('button', { name: 'Add an MCP server' }).click();
  const form = settings.getByRole('form', { name: 'Add an MCP server' });
  await form.getByRole('textbox', { name: 'Name' }).fill('notes');
  await form.getByRole('textbox', { name: 'Command' }).fill(command);
  await shot(page, 'mcp-01-add.png');
  await form.getByRole('button', { name: 'Add server' }).click();
  await settings.getByRole('status').filter({ hasText: 'MCP server notes added' }).waitFor();

  // Ready, with its two tools and where it comes from.
  const item = settings.getByRole('list', { name: 'MCP servers' }).getByRole('listitem', { name: 'notes' });
  await item.getByText('Ready').waitFor();
  await item.getByText('2 tools, offered to the model').waitFor();
  await item.getByText('Yours (added in Foya)').waitFor();
  await item.getByText(command).waitFor();
  const stored = await api(page, 'MCPServers', '');
  check(stored.servers.length === 1 && stored.servers[0].name === 'notes' && stored.servers[0].state === 'ready' && stored.servers[0].tools === 2,
    `stored servers ${JSON.stringify(stored.servers)}; want notes ready with 2 tools`);

  // Its resources and prompts (spec M3: not tools).
  await item.getByRole('button', { name: 'Resources and prompts of notes' }).click();
  const resources = item.getByRole('region', { name: 'Resources of notes' });
  await resources.getByText('notes://all').waitFor();
  await resources.getByRole('button', { name: 'Show notes://all' }).click();
  await resources.getByLabel('Contents of notes://all').getByText('(no notes yet)').waitFor();
  await item.getByRole('region', { name: 'Prompts of notes' }).getByText('summarize_notes').waitFor();
  await shot(page, 'mcp-02-ready.png');

  // Remove it, after the confirmation.
  await item.getByRole('button', { name: 'Remove notes' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Remove MCP server notes?' });
  await confirm.getByRole('button', { name: 'Remove notes' }).click();
  await settings.getByRole('status').filter({ hasText: 'MCP server notes removed' }).waitFor();
  await settings.getByText('No MCP servers yet').waitFor();
  check((await api(page, 'MCPServers', '')).servers.length === 0, 'the server is still stored after the removal');
  await shot(page, 'mcp-03-removed.png');

  check(errors.length === 0, `errors on the page: ${errors.join('; ')}`);
  console.log(`MCP settings ok; screenshots: ${saved.join(', ')}`);
} catch (err) {
  failed = true;
  console.error(`MCP settings failed: ${err.stack || err}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
