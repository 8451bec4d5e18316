#!/usr/bin/env node
// The client command of the MCP conformance suite (@modelcontextprotocol/conformance).
//
// For each client scenario the suite starts a test server, then runs this
// script with the server's URL as the last argument, the scenario's name in
// MCP_CONFORMANCE_SCENARIO and, for the scenarios with pre-registered
// credentials, a JSON object in MCP_CONFORMANCE_CONTEXT. The script drives
// Foya's own client, the command line's `foya mcp tools` and `foya mcp call`
// (a process and a connection each), as the scenario expects a client to:
// list the tools, call the scenario's tool. The suite then judges what the
// server saw.
//
// FOYA_BIN is the foya binary (default: foya on PATH). Each run gets a home,
// data folder and database of its own, removed on exit, so that the suite's
// parallel runs share nothing and nothing of the person's own Foya is read.
// OAuth's authorization page is handed to open-url.mjs (FOYA_OAUTH_OPENER),
// which follows it as a browser would: the suite's authorization server
// redirects at once to Foya's loopback listener.
//
// It needs Node 18 or later (fetch); make test-conformance runs it with the
// suite's own Node.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
if (process.argv.length < 3 || !scenario) {
  console.error('usage: MCP_CONFORMANCE_SCENARIO=NAME client.mjs SERVER_URL (the conformance suite sets both)');
  process.exit(2);
}
let context = {};
if (process.env.MCP_CONFORMANCE_CONTEXT) {
  try {
    context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT);
  } catch (err) {
    console.error(`client.mjs: MCP_CONFORMANCE_CONTEXT is not JSON: ${err.message}`);
    process.exit(2);
  }
}
const foya = process.env.FOYA_BIN || 'foya';

const home = mkdtempSync(join(tmpdir(), 'foya-conformance-'));
process.on('exit', () => rmSync(home, { recursive: true, force: true }));
const env = {
  ...process.env,
  HOME: home,
  XDG_DATA_HOME: join(home, 'data'),
  XDG_CONFIG_HOME: join(home, 'config'),
  XDG_STATE_HOME: join(home, 'state'),
  XDG_CACHE_HOME: join(home, 'cache'),
  FOYA_DB: join(home, 'foya.db'),
  FOYA_OAUTH_OPENER: join(here, 'open-url.mjs'),
};

// stepTimeout bounds one foya command, below the suite's 30 s for the
// whole client: the suite's kill would reach this script, not foya.
const stepTimeout = 25000;

// foyaMCP runs one foya mcp command; a failure ends the run with foya's
// exit code, its message already on standard error.
function foyaMCP(...args) {
  console.error(`+ foya mcp ${args.join(' ')}`);
  const r = spawnSync(foya, ['mcp', ...args], { env, stdio: ['ignore', 'inherit', 'inherit'], timeout: stepTimeout });
  if (r.error?.code === 'ETIMEDOUT') {
    console.error(`client.mjs: foya mcp ${args[0]} did not end within ${stepTimeout / 1000} s: killed`);
    process.exit(1);
  }
  if (r.error) {
    console.error(`client.mjs: cannot run ${foya}: ${r.error.message}`);
    process.exit(1);
  }
  if (r.status !== 0) {
    process.exit(r.status ?? 1);
  }
}
const tools = (...flags) => foyaMCP('tools', '--url', url, ...flags);
const call = (tool, args, ...flags) => foyaMCP('call', '--url', url, ...flags, tool, JSON.stringify(args));

// need returns the context's field, or ends the run saying which is missing.
function need(field) {
  if (typeof context[field] !== 'string' || context[field] === '') {
    console.error(`client.mjs: the scenario ${scenario} gave no ${field} in MCP_CONFORMANCE_CONTEXT`);
    process.exit(2);
  }
  return context[field];
}

switch (scenario) {
  case 'initialize':
    // initialize, notifications/initialized, tools/list.
    tools();
    break;
  case 'tools_call':
    tools();
    call('add_numbers', { a: 5, b: 3 });
    break;
  case 'elicitation-sep1034-client-defaults':
    // The tool asks, through elicitation/create, for a form whose every
    // field has a default, and wants them all back.
    tools();
    call('test_client_elicitation_defaults', {}, '--elicit', 'defaults');
    break;
  case 'sse-retry':
    // The server ends the call's event stream after a priming event with
    // retry: 500; the client must wait that long, resume with a GET that
    // carries Last-Event-ID, and take the result from there.
    call('test_reconnection', {});
    break;
  case 'auth/pre-registration':
    // No registration endpoint: the client uses the credentials it was given.
    tools('--client-id', need('client_id'), '--client-secret', need('client_secret'));
    break;
  case 'auth/client-credentials-basic':
    tools('--grant', 'client-credentials', '--client-id', need('client_id'), '--client-secret', need('client_secret'));
    break;
  case 'auth/client-credentials-jwt': {
    // private_key_jwt: the client signs an assertion with this key.
    const key = join(home, 'client-key.pem');
    writeFileSync(key, need('private_key_pem'), { mode: 0o600 });
    tools('--grant', 'client-credentials', '--client-id', need('client_id'), '--private-key-file', key);
    break;
  }
  case 'auth/basic-cimd': {
    // The authorization server takes client ID metadata documents: the
    // client's ID is the URL of the document that describes it (the one
    // the suite expects; a user gives their own with the same flag).
    const cimd = '--client-metadata-url';
    const doc = 'https://conformance-test.local/client-metadata.json';
    tools(cimd, doc);
    call('test-tool', {}, cimd, doc);
    break;
  }
  case 'auth/cross-app-access-complete-flow':
    // SEP-990 (an extension): an identity provider's ID token exchanged for
    // an authorization grant, then for an access token. Foya does not do it.
    console.error('client.mjs: Foya does not support cross-app access (SEP-990, an optional extension)');
    process.exit(1);
    break;
  default:
    if (scenario.startsWith('auth/')) {
      // The MCP server answers 401 until the client has been through OAuth
      // with the suite's authorization server; then it lists the tools and
      // calls one (step-up scenarios answer the call with 403
      // insufficient_scope).
      tools();
      call('test-tool', {});
      break;
    }
    console.error(`client.mjs: no steps for the scenario ${scenario}: add them here`);
    process.exit(1);
}
