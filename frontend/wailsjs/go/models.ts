export namespace api {
	
	export interface ArtifactData {
	    id: string;
	    mime: string;
	    size: number;
	    width?: number;
	    height?: number;
	    data: string;
	}
	export interface SessionPatch {
	    title?: string;
	    mode?: string;
	    provider?: string;
	    model?: string;
	}

}

export namespace event {
	
	export interface Event {
	    type: string;
	    sessionId: string;
	    runId?: string;
	    parentCallId?: string;
	    seq: number;
	    // Go type: time
	    time: any;
	    data?: number[];
	}
	export interface FileChange {
	    id: string;
	    sessionId: string;
	    runId?: string;
	    callId?: string;
	    tool?: string;
	    path: string;
	    op: string;
	    existedBefore: boolean;
	    existsAfter: boolean;
	    isDir?: boolean;
	    modeBefore?: number;
	    modeAfter?: number;
	    shaBefore?: string;
	    shaAfter?: string;
	    binary?: boolean;
	    diff?: string;
	    added?: number;
	    removed?: number;
	    trashPath?: string;
	    trashInfo?: string;
	    revertOf?: string;
	    unconfirmed?: boolean;
	    renamedFrom?: string;
	    notRestorable?: string;
	    // Go type: time
	    createdAt: any;
	}
	export interface Usage {
	    promptTokens: number;
	    completionTokens: number;
	    totalTokens: number;
	}

}

export namespace kernel {
	
	export interface Action {
	    kind: string;
	    tool: string;
	    paths?: string[];
	    command?: string;
	    host?: string;
	    addresses?: string[];
	    readOnly?: boolean;
	    mcpServer?: string;
	    mcpTool?: string;
	}
	export interface Grant {
	    kind: string;
	    tool?: string;
	    prefix?: string[];
	    host?: string;
	    folder?: string;
	}
	export interface Answer {
	    choice: string;
	    scope?: Grant;
	    message?: string;
	}
	export interface ApprovalRequest {
	    callId: string;
	    action: Action;
	    why: string;
	    preview?: string;
	}
	export interface Approval {
	    id: string;
	    sessionId: string;
	    runId: string;
	    request: ApprovalRequest;
	    reason: string;
	    scopes: Grant[];
	    // Go type: time
	    askedAt: any;
	    subAgent?: string;
	}
	export interface ApprovalRecord {
	    id: string;
	    sessionId: string;
	    runId: string;
	    callId: string;
	    state: string;
	    request: ApprovalRequest;
	    answer?: Answer;
	    // Go type: time
	    askedAt: any;
	    // Go type: time
	    answeredAt: any;
	}
	
	export interface BackgroundCommand {
	    id: string;
	    sessionId: string;
	    command: string;
	    pid: number;
	    // Go type: time
	    startedAt: any;
	    running: boolean;
	    exitCode: number;
	    signal?: string;
	    killed?: boolean;
	    timedOut?: boolean;
	    durationNs?: number;
	    sandbox: string;
	    outputBytes: number;
	}
	export interface BackgroundOutput {
	    command: BackgroundCommand;
	    text: string;
	    binary?: boolean;
	    omitted: number;
	}
	export interface Part {
	    type: string;
	    artifactId?: string;
	    mime?: string;
	}
	export interface ToolResult {
	    text: string;
	    isError?: boolean;
	    parts?: Part[];
	    artifacts?: string[];
	    stopBatch?: boolean;
	    fileChanges?: event.FileChange[];
	    displayDiff?: string;
	}
	export interface Call {
	    sessionId: string;
	    runId: string;
	    id: string;
	    step: number;
	    index: number;
	    name: string;
	    arguments: string;
	    state: string;
	    result?: ToolResult;
	    // Go type: time
	    startedAt: any;
	    // Go type: time
	    endedAt: any;
	}
	export interface ChangeContents {
	    changeId: string;
	    before: string;
	    beforeKnown: boolean;
	    after: string;
	    afterKnown: boolean;
	}
	export interface Conflict {
	    changeId: string;
	    path: string;
	    reason: string;
	    expectedExists: boolean;
	    expectedSha?: string;
	    foundExists: boolean;
	    foundSha?: string;
	    diff?: string;
	    forceable: boolean;
	}
	
	export interface ToolCall {
	    id: string;
	    name: string;
	    arguments: string;
	}
	export interface HistoryMessage {
	    role: string;
	    content?: string;
	    reasoning?: string;
	    toolCalls?: ToolCall[];
	    toolCallId?: string;
	    toolName?: string;
	    isError?: boolean;
	    parts?: Part[];
	}
	export interface Info {
	    version: string;
	    commit: string;
	    date: string;
	    dataDir: string;
	    dbPath: string;
	    readOnly?: string;
	}
	export interface Message {
	    sessionId: string;
	    runId: string;
	    message: HistoryMessage;
	}
	export interface NewSession {
	    workdir: string;
	    approvalMode: string;
	    provider?: string;
	    model?: string;
	    title?: string;
	    tools?: string[];
	}
	
	export interface Rule {
	    tool?: string;
	    command?: string;
	    path?: string;
	    host?: string;
	}
	export interface ProjectRules {
	    workdir: string;
	    file: string;
	    status: string;
	    content?: string;
	    hash?: string;
	    error?: string;
	    // Go type: time
	    approvedAt?: any;
	    allow?: Rule[];
	    ask?: Rule[];
	    deny?: Rule[];
	}
	export interface ResourceRef {
	    server: string;
	    uri: string;
	}
	export interface RevertRequest {
	    changeIds?: string[];
	    runId?: string;
	    toChangeId?: string;
	    hunks?: number[];
	    force?: boolean;
	    dryRun?: boolean;
	}
	export interface RevertResult {
	    reverted: event.FileChange[];
	    conflicts?: Conflict[];
	    dryRun?: boolean;
	}
	
	export interface Run {
	    id: string;
	    sessionId: string;
	    status: string;
	    prompt: string;
	    error?: string;
	    steps: number;
	    usage: event.Usage;
	    owner?: string;
	    // Go type: time
	    startedAt: any;
	    // Go type: time
	    endedAt: any;
	    parentRunId?: string;
	    parentCallId?: string;
	}
	export interface Session {
	    id: string;
	    title: string;
	    projectId: string;
	    workdir: string;
	    approvalMode: string;
	    provider: string;
	    model: string;
	    tools?: string[];
	    // Go type: time
	    createdAt: any;
	    // Go type: time
	    updatedAt: any;
	    runs: number;
	    lastSeq: number;
	}
	
	
	export interface WorkspaceUsage {
	    dir: string;
	    blobs: number;
	    blobBytes: number;
	    indexes: number;
	    indexBytes: number;
	    maxKeptBytes: number;
	}

}

export namespace main {
	
	export interface UIReport {
	    version: string;
	    sessions: number;
	    error: string;
	    open: string;
	    turns: number;
	    cards: number;
	    images: number;
	    setup: boolean;
	}

}

export namespace mcp {
	
	export interface Content {
	    uri: string;
	    mimeType?: string;
	    text?: string;
	    blob?: number[];
	}
	export interface Message {
	    role: string;
	    text: string;
	}
	export interface PromptArg {
	    name: string;
	    description?: string;
	    required?: boolean;
	}
	export interface Prompt {
	    name: string;
	    description?: string;
	    arguments?: PromptArg[];
	}
	
	export interface Resource {
	    uri: string;
	    name: string;
	    description?: string;
	    mimeType?: string;
	}

}

export namespace mcpconfig {
	
	export interface Approval {
	    fingerprint: string;
	    unsandboxed?: boolean;
	    workspaceCode?: boolean;
	}
	export interface Config {
	    name: string;
	    command?: string;
	    args?: string[];
	    env?: Record<string, string>;
	    url?: string;
	    type?: string;
	    headers?: Record<string, string>;
	    sandbox?: boolean;
	    alwaysLoad?: boolean;
	    timeout?: string;
	}
	export interface Imported {
	    added: string[];
	    skipped: string[];
	    problems: string[];
	}
	export interface Server {
	    name: string;
	    scope: string;
	    file: string;
	    importedFrom?: string;
	    transport: string;
	    commandLine: string;
	    state: string;
	    error?: string;
	    stderr?: string;
	    tools: number;
	    deferred: boolean;
	    sandbox: boolean;
	    alwaysLoad: boolean;
	    restarts: number;
	    command?: string;
	    args?: string[];
	    cwd?: string;
	    env?: Record<string, string>;
	    url?: string;
	    headers?: string[];
	    code?: string[];
	    fingerprint?: string;
	}
	export interface List {
	    servers: Server[];
	    problems: string[];
	}

}

export namespace profiles {
	
	export interface CheckStep {
	    status: string;
	    httpStatus?: number;
	    message: string;
	    millis: number;
	}
	export interface ModelServer {
	    id: string;
	    name: string;
	    baseUrl: string;
	    local: boolean;
	    fromEnv: boolean;
	    keyPresent: boolean;
	    status: string;
	    message: string;
	    models: string[];
	    millis: number;
	}
	export interface Provider {
	    name: string;
	    baseUrl: string;
	    model: string;
	    headers?: Record<string, string>;
	    secretHeaders?: string[];
	    keyStore?: string;
	    default?: boolean;
	}
	export interface ProviderCheck {
	    provider: string;
	    baseUrl: string;
	    model: string;
	    models: CheckStep;
	    stream: CheckStep;
	}
	export interface ProviderEdit {
	    baseUrl?: string;
	    model?: string;
	    headers?: Record<string, string>;
	    apiKey?: string;
	}
	export interface ProviderInput {
	    name: string;
	    baseUrl: string;
	    model: string;
	    headers?: Record<string, string>;
	    apiKey?: string;
	}

}

export namespace settings {
	
	export interface Entry {
	    key: string;
	    family?: string;
	    label: string;
	    kind: string;
	    default: string;
	    doc: string;
	    value: string;
	    set?: Record<string, string>;
	}

}

