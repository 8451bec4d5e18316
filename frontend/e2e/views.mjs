// Browser end-to-end: every view of the app, at 1280x800 and 1920x1080, in
// the light and the dark theme, saved as screenshots to look at. Started by
// tests/e2e (Go, TestBrowserEveryView), which passes:
//   FOYA_URL        the token URL of a foya serve holding three sessions:
//                   one whose run wrote, edited, ran and read ("Add a
//                   health check"), one whose run compacted its context
//                   ("Read the shop's notes"), one waiting for a command's
//                   approval ("Waiting for approval")
//   FOYA_FIRST_URL  the token URL of a foya serve with no profile, a model
//                   server found on a probed port
//   FOYA_SHOTS      the folder to save screenshots in (views/ under it)
//   FOYA_CHROMIUM   the browser binary (never downloaded)
// Every view is reached as a person does, by role and name, and checked
// before its screenshot: the page drew it, nothing overflows the window
// sideways, the page threw nothing. Exits 0 when every check holds, 1 with
// the reason otherwise.
import { check, env, launch, pageErrors, reveal, screenshots, timeout } from './lib.mjs';
import { join } from 'node:path';

const url = env('FOYA_URL');
const firstURL = env('FOYA_FIRST_URL');
const { shot, saved } = screenshots(join(env('FOYA_SHOTS'), 'views'));

const sizes = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];
const themes = ['light', 'dark'];

/** flat checks that nothing makes the page scroll sideways. */
async function flat(page, what) {
  const [sw, cw] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  check(sw <= cw, `${what}: the page is ${sw} px wide in a ${cw} px window`);
}

/** view checks the page and saves it as <size>-<theme>-<name>.png. */
async function view(page, tag, name) {
  await flat(page, `${tag} ${name}`);
  // The theme the page drew is the one asked for (the system's, as a new
  // user has it).
  const drawn = await page.evaluate(() => document.documentElement.dataset.theme);
  check(drawn === tag.split('-')[1], `${tag} ${name}: the page drew the ${drawn} theme`);
  await shot(page, `${tag}-${name}.png`);
}

/** closeDialog presses Escape and waits for the dialog to go. */
async function closeDialog(page, dialog) {
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
}

const browser = await launch();
let step = 'start';
let failed = false;
try {
  for (const viewport of sizes) {
    for (const theme of themes) {
      const tag = `${viewport.width}x${viewport.height}-${theme}`;
      const context = await browser.newContext({ viewport, colorScheme: theme });
      const page = await context.newPage();
      page.setDefaultTimeout(timeout);
      const errors = pageErrors(page);
      const main = page.getByRole('main');
      const sidebar = page.getByRole('complementary', { name: 'Sessions sidebar' });
      const list = sidebar.getByRole('list', { name: 'Sessions' });

      step = `${tag}: the first run`;
      let resp = await page.goto(firstURL);
      check(resp && resp.ok(), `GET the first run's token URL: ${resp && resp.status()}`);
      const setup = main.getByRole('form', { name: 'Save a provider profile' });
      await setup.getByRole('radio', { name: /^OpenAI-compatible server on port \d+ \(found, 2 models\)$/ }).waitFor();
      await setup.getByRole('listbox', { name: 'Model' }).waitFor();
      await view(page, tag, '01-first-run');

      step = `${tag}: no session open`;
      resp = await page.goto(url);
      check(resp && resp.ok(), `GET the token URL: ${resp && resp.status()}`);
      await main.getByRole('heading', { level: 2, name: 'No session open' }).waitFor();
      await list.getByRole('button', { name: 'Add a health check', exact: true }).waitFor();
      await view(page, tag, '02-home');

      step = `${tag}: the conversation`;
      await list.getByRole('button', { name: 'Add a health check', exact: true }).click();
      await main.getByRole('heading', { level: 2, name: 'Add a health check' }).waitFor();
      const log = main.getByRole('log', { name: 'Conversation' });
      await log.getByText('The health check is in place').waitFor();
      await log.getByRole('article', { name: 'Read 2 files', exact: true }).waitFor();
      await view(page, tag, '03-conversation');

      step = `${tag}: the review panel`;
      await main.getByRole('toolbar', { name: 'Session views' }).getByRole('button', { name: /^Review/ }).click();
      const review = page.getByRole('complementary', { name: 'Review changes' });
      await review.waitFor();
      await review.getByRole('listitem', { name: /health\.go/ }).first().getByRole('button', { name: 'Show diff' }).click();
      await review.getByRole('table', { name: 'Diff of health.go' }).waitFor();
      await view(page, tag, '04-review');

      step = `${tag}: the background commands`;
      await main.getByRole('toolbar', { name: 'Session views' }).getByRole('button', { name: 'Background' }).click();
      await review.waitFor({ state: 'detached' });
      const background = page.getByRole('region', { name: 'Background commands' });
      await background.getByRole('listitem').first().waitFor();
      await view(page, tag, '05-background');
      await main.getByRole('toolbar', { name: 'Session views' }).getByRole('button', { name: 'Background' }).click();

      step = `${tag}: the model picker`;
      const form = main.getByRole('form', { name: 'Send a message' });
      await form.getByRole('button', { name: 'Model: scripted-coder (scripted)' }).click();
      await form.getByRole('listbox', { name: 'Provider profiles' }).getByRole('option', { name: /scripted/ }).waitFor();
      await view(page, tag, '05b-model-picker');
      await page.keyboard.press('Escape');
      await form.getByRole('group', { name: 'Choose a model' }).waitFor({ state: 'detached' });

      step = `${tag}: the mode menu`;
      await main.getByRole('button', { name: 'Approval mode: Auto' }).click();
      const menu = page.getByRole('menu');
      await menu.getByRole('menuitemradio', { name: /^Auto/, checked: true }).waitFor();
      await view(page, tag, '06-mode-menu');
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });

      step = `${tag}: a compaction of the context`;
      await list.getByRole('button', { name: "Read the shop's notes", exact: true }).click();
      await main.getByRole('heading', { level: 2, name: "Read the shop's notes" }).waitFor();
      const notes = main.getByRole('log', { name: 'Conversation' });
      await notes.getByText('I read all 40 notes').waitFor();
      const compaction = await reveal(notes, notes.getByRole('region', { name: 'Compaction' }));
      await compaction.getByRole('button', { name: 'Show the summary' }).click();
      await compaction.getByText('Do not change the code.').waitFor();
      await compaction.evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await view(page, tag, '03c-compaction');

      step = `${tag}: the context meter's popover`;
      await main.getByRole('form', { name: 'Send a message' }).getByRole('button', { name: /^Context: / }).click();
      const pop = page.getByRole('dialog', { name: 'Context' });
      await pop.getByRole('button', { name: 'Compact now' }).waitFor();
      await view(page, tag, '03d-context-meter');
      await page.keyboard.press('Escape');
      await pop.waitFor({ state: 'detached' });

      step = `${tag}: an approval request`;
      await list.getByRole('button', { name: 'Waiting for approval', exact: true }).click();
      await main.getByRole('heading', { level: 2, name: 'Waiting for approval' }).waitFor();
      await main.getByRole('region', { name: 'Run a command?' }).waitFor();
      await view(page, tag, '07-approval');

      step = `${tag}: the new session dialog`;
      await sidebar.getByRole('button', { name: 'New session' }).first().click();
      let dialog = page.getByRole('dialog', { name: 'New session' });
      await dialog.getByRole('combobox', { name: 'Folder' }).waitFor();
      await view(page, tag, '08-new-session');
      await closeDialog(page, dialog);

      step = `${tag}: the keyboard map`;
      await sidebar.getByRole('button', { name: 'Keyboard shortcuts' }).click();
      dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await dialog.getByRole('region', { name: 'The review panel' }).waitFor();
      await view(page, tag, '09-keyboard');
      await closeDialog(page, dialog);

      step = `${tag}: settings`;
      await sidebar.getByRole('button', { name: 'Settings' }).click();
      dialog = page.getByRole('dialog', { name: 'Settings' });
      const tabs = ['Approval mode', 'Providers', 'Models and limits', 'MCP servers', 'Hooks', 'Notifications', 'Theme', 'Isolated copies'];
      for (const [i, name] of tabs.entries()) {
        step = `${tag}: settings, ${name}`;
        const tab = dialog.getByRole('tab', { name });
        await tab.click();
        check((await tab.getAttribute('aria-selected')) === 'true', `the ${name} tab is not selected after its click`);
        await dialog.getByRole('tabpanel').waitFor();
        await view(page, tag, `10-settings-${i + 1}-${name.toLowerCase().replaceAll(' ', '-')}`);
      }
      await closeDialog(page, dialog);

      check(errors.length === 0, `${tag}: the page threw: ${errors.join('; ')}`);
      await context.close();
    }
  }
  console.log(`views: ${saved.length} screenshots`);
} catch (e) {
  failed = true;
  console.error(`views.mjs: ${step}: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
