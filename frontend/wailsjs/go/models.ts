export namespace kernel {
	
	export interface Info {
	    version: string;
	    commit: string;
	    date: string;
	    dataDir: string;
	    dbPath: string;
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

