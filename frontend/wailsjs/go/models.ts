export namespace kernel {
	
	export interface Info {
	    version: string;
	    dataDir: string;
	    dbPath: string;
	}

}

export namespace llm {
	
	export interface Event {
	    type: string;
	    sessionId: string;
	    runId?: string;
	    seq: number;
	    // Go type: time
	    time: any;
	    data?: number[];
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

}

export namespace main {
	
	export interface UIReport {
	    version: string;
	    sessions: number;
	    error: string;
	}

}

