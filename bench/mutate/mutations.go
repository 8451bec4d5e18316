package main

// mutations are the deliberate bugs of make mutate, in the four packages
// whose behaviour the spec pins hardest: the engine, approval, the tools
// and the sandbox. Each is a bug someone could write: a condition flipped
// or dropped, a limit off by one, a check skipped, a deny made an allow, a
// trash delete made permanent. Pkgs and Run name the tests that should
// kill it (docs/spec-coverage.md names them for the spec ID), so one
// mutation costs one test binary, not the whole suite.
//
// A snippet that no longer occurs exactly once makes the run fail as
// stale: when the code moves, move the mutation with it.
var mutations = []mutation{
	// --- backend/engine ---
	{
		ID: "X2-overwrite-completed", Spec: "X2", What: "recovery marks calls that had completed as interrupted too",
		File: "backend/engine/recover.go",
		Old:  "\t\tif cr.State.Terminal() {\n\t\t\tcontinue\n\t\t}\n", New: "",
		Pkgs: []string{"./tests"}, Run: "TestRecoveryKeepsCompletedResults|TestKilledRunIsInterruptedNotReplayed",
	},
	{
		ID: "X2-forget-results", Spec: "X2", What: "recovery answers completed calls with 'interrupted' instead of their stored results",
		File: "backend/engine/recover.go",
		Old:  "if cr, ok := byID[tc.ID]; ok && cr.Result != nil {", New: "if cr, ok := byID[tc.ID]; ok && cr.Result != nil && false {",
		Pkgs: []string{"./tests"}, Run: "TestRecoveryKeepsCompletedResults|TestKilledRunIsInterruptedNotReplayed",
	},
	{
		ID: "P4-drop-last-result", Spec: "P4", What: "the last call's tool message is not fed back",
		File: "backend/engine/run.go",
		Old:  "\t\tm := toolMessage(rec, res)\n\t\tr.hist = append(r.hist, m)\n",
		New:  "\t\tif i == len(recs)-1 && i > 0 {\n\t\t\tcontinue\n\t\t}\n\t\tm := toolMessage(rec, res)\n\t\tr.hist = append(r.hist, m)\n",
		Pkgs: []string{"./tests"}, Run: "TestParallelLaneCapAndOrder",
	},
	{
		ID: "P3-six-at-once", Spec: "P3", What: "the parallel lane runs six calls at once",
		File: "backend/engine/batch.go",
		Old:  "sem := make(chan struct{}, MaxParallel)", New: "sem := make(chan struct{}, MaxParallel+1)",
		Pkgs: []string{"./tests"}, Run: "TestParallelLaneCapAndOrder",
	},
	{
		ID: "P1-all-parallel", Spec: "P1,P5,K2", What: "every call runs in the parallel lane, declared or not",
		File: "backend/engine/batch.go",
		Old:  "\tif par, ok := t.(tools.Parallel); ok {\n\t\tp.parallel = par.ParallelSafe(p.call)\n\t}\n",
		New:  "\tp.parallel = true\n",
		Pkgs: []string{"./tests"}, Run: "TestSerialLaneKeepsModelOrder",
	},
	{
		ID: "K1-no-schema-check", Spec: "K1,T4", What: "arguments are not checked against the tool's schema",
		File: "backend/engine/batch.go",
		Old:  "if err := r.e.cfg.Tools.Validate(rec.Name, args); err != nil {", New: "if err := r.e.cfg.Tools.Validate(rec.Name, args); err != nil && false {",
		Pkgs: []string{"./tests"}, Run: "TestBusinessErrorsGoBackToTheModel",
	},
	{
		ID: "E1-call-unoffered-tool", Spec: "E1,A1", What: "a registered tool runs though it was not offered in this step",
		File: "backend/engine/batch.go",
		Old:  "if !ok || !contains(visible, rec.Name) {", New: "if !ok {",
		Pkgs: []string{"./tests"}, Run: "TestDeferredActivationLastsOneTurn|TestBusinessErrorsGoBackToTheModel",
	},
	{
		ID: "T4-calls-cap-off-by-one", Spec: "T4", What: "1001 calls of one answer run instead of 1000",
		File: "backend/engine/batch.go",
		Old:  "if i < MaxCallsPerStep {", New: "if i <= MaxCallsPerStep {",
		Pkgs: []string{"./tests"}, Run: "TestTenThousandToolCallsInOneAnswer",
	},
	{
		ID: "X1-cancel-not-recorded", Spec: "X1", What: "a call cancelled with its run ends as an error, not cancelled",
		File: "backend/engine/batch.go",
		Old:  "\t\tp.rec.State = llm.CallCancelled\n", New: "",
		Pkgs: []string{"./tests"}, Run: "TestCancelStopsRunningCalls",
	},
	{
		ID: "T3-stop-batch-ignored", Spec: "T3", What: "a result's stop-batch signal is ignored",
		File: "backend/engine/batch.go",
		Old:  "if res.StopBatch && stopped == \"\" {", New: "if false && res.StopBatch && stopped == \"\" {",
		Pkgs: []string{"./tests"}, Run: "TestStopBatchAndDisplayDiff",
	},
	{
		ID: "A1-deny-allows", Spec: "A1,T4", What: "the person's deny is taken as an allow",
		File: "backend/engine/approve.go",
		Old:  "case ans.Choice == approval.Deny:", New: "case ans.Choice == approval.Deny && false:",
		Pkgs: []string{"./tests"}, Run: "TestServeDenyMessageReachesTheModel|TestModesThroughTheEngine",
	},
	{
		ID: "A1-result-unmasked", Spec: "A1", What: "a tool's result text is stored and fed back without masking secrets",
		File: "backend/engine/batch.go",
		Old:  "\t\tText:        mask(res.Text),\n", New: "\t\tText:        res.Text,\n",
		Pkgs: []string{"./tests"}, Run: "TestSecretsStayOutOfCommandsModelAndDB",
	},

	// --- backend/approval ---
	{
		ID: "D2-auto-deletes-protected", Spec: "D2", What: "Auto allows deleting .git, the workspace root and outside paths",
		File: "backend/approval/policy.go",
		Old:  "DeleteProtected:      {Refuse, Refuse, Allow},", New: "DeleteProtected:      {Refuse, Allow, Allow},",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "D4-full-access-deletes-root", Spec: "D4", What: "Full Access allows deleting the filesystem root",
		File: "backend/approval/policy.go",
		Old:  "DeleteRoot:           {Refuse, Refuse, Refuse},", New: "DeleteRoot:           {Refuse, Refuse, Allow},",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "A2-manual-shell-unasked", Spec: "A2", What: "Manual runs shell commands without asking",
		File: "backend/approval/policy.go",
		Old:  "Shell:                {Ask, Allow, Allow},", New: "Shell:                {Allow, Allow, Allow},",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "D2-auto-asks-rm", Spec: "D2", What: "Auto asks about rm -rf instead of refusing it",
		File: "backend/approval/policy.go",
		Old:  "ShellPermanentDelete: {Refuse, Refuse, Allow},", New: "ShellPermanentDelete: {Refuse, Ask, Allow},",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "A1-deny-rule-ignored", Spec: "A1", What: "deny rules are not applied",
		File: "backend/approval/policy.go",
		Old:  "if rule, ok := r.match(r.Deny, a, cmd, true); ok {", New: "if rule, ok := r.match(r.Deny, a, cmd, true); ok && false {",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "A1-unreadable-rules-pass", Spec: "A1", What: "rules that could not be read are skipped instead of making Foya ask",
		File: "backend/approval/policy.go",
		Old:  "\t\tif r.Err != nil {\n\t\t\treturn Decision{Verdict: Ask,", New: "\t\tif r.Err != nil && false {\n\t\t\treturn Decision{Verdict: Ask,",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "A1-unapproved-project-allows", Spec: "A1", What: "a project's allow rules apply before the user approved the file",
		File: "backend/approval/policy.go",
		Old:  "case r.Approved.IsZero():", New: "case false && r.Approved.IsZero():",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "D2-opaque-allowed-in-auto", Spec: "D2", What: "Auto runs commands Foya cannot read without asking",
		File: "backend/approval/policy.go",
		Old:  "if opaque && mode != FullAccess {", New: "if opaque && mode == Manual {",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "D2-unlink-not-a-delete", Spec: "D2", What: "unlink is not recognised as a permanent delete",
		File: "backend/approval/deletes.go",
		Old:  "var deleters = []string{\"rm\", \"rmdir\", \"unlink\", ", New: "var deleters = []string{\"rm\", \"rmdir\", ",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "A1-prefix-grant-covers-chains", Spec: "A1", What: "a command-prefix grant covers a command of which only one part matches",
		File: "backend/approval/command.go",
		Old:  "\t\tif !hasPrefix(s, prefix) {\n\t\t\treturn false\n\t\t}\n\t}\n\treturn true\n",
		New:  "\t\tif hasPrefix(s, prefix) {\n\t\t\treturn true\n\t\t}\n\t}\n\treturn false\n",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "A1-folder-grant-escapes", Spec: "A1", What: "containment by string prefix: a folder holds its siblings that start with its name (/w/a holds /w/ab)",
		File: "backend/fspath/fspath.go",
		Old:  "\t\tprefix += string(filepath.Separator)\n",
		New:  "",
		Pkgs: []string{"./backend/fspath", "./backend/approval"},
	},
	{
		ID: "D2-nesting-limit-off-by-one", Spec: "D2", What: "scripts are read one level less deep than maxNesting (found by gremlins)",
		File: "backend/approval/command.go",
		Old:  "func (c *Command) script(src string, depth int) error {\n\tif depth > maxNesting {",
		New:  "func (c *Command) script(src string, depth int) error {\n\tif depth >= maxNesting {",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "D2-stdin-descriptor-flipped", Spec: "D2", What: "redirections of descriptors other than 0 are taken as standard input, 0< is not (found by gremlins)",
		File: "backend/approval/command.go",
		Old:  "if r.N != nil && r.N.Value != \"0\" {", New: "if r.N != nil && r.N.Value == \"0\" {",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "D2-find-stops-after-exec", Spec: "D2", What: "find's actions after the first -exec are not read (found by gremlins)",
		File: "backend/approval/deletes.go",
		Old:  "\t\t\tc.run(rest, stdin{}, depth+1)\n\t\t\tif end < 0 {\n\t\t\t\treturn\n\t\t\t}\n",
		New:  "\t\t\tc.run(rest, stdin{}, depth+1)\n\t\t\tif end >= 0 {\n\t\t\t\treturn\n\t\t\t}\n",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "A1-folder-grant-pathless", Spec: "A1", What: "a folder grant covers an action that names no path (found by gremlins)",
		File: "backend/approval/policy.go",
		Old:  "return len(a.Paths) > 0 && !slices.ContainsFunc(", New: "return len(a.Paths) >= 0 && !slices.ContainsFunc(",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "A1-plain-ask-not-by-mode", Spec: "A1", What: "a plain ask is not marked as the mode table's own (found by gremlins)",
		File: "backend/approval/policy.go",
		Old:  "return Decision{Verdict: Ask, Reason: askWhy, ByMode: len(notes) == 0}", New: "return Decision{Verdict: Ask, Reason: askWhy, ByMode: len(notes) != 0}",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "A1-session-answer-unparsed", Spec: "A1", What: "a session answer's prefix scope is checked without the parsed command (found by gremlins)",
		File: "backend/approval/action.go",
		Old:  "func (a Action) command() *Command {\n\tif a.Command == \"\" {", New: "func (a Action) command() *Command {\n\tif a.Command != \"\" {",
		Pkgs: []string{"./backend/approval"},
	},
	{
		ID: "A1-second-answer-accepted", Spec: "A1", What: "a second answer to one request is not refused",
		File: "backend/approval/gateway.go",
		Old:  "\tif w.answered {\n\t\treturn fmt.Errorf(\"approval %s: %w\", id, ErrAnswered)\n\t}\n", New: "",
		Pkgs: []string{"./backend/approval"},
	},

	// --- backend/tools ---
	{
		ID: "E2-names-only", Spec: "E2", What: "tool_search matches names only, not descriptions",
		File: "backend/tools/search.go",
		Old: "\t\t\tfor _, d := range desc {\n\t\t\t\tif d == w {\n\t\t\t\t\tscore += 5\n\t\t\t\t} else if len(w) >= 4 && strings.HasPrefix(d, w) {\n" +
			"\t\t\t\t\tscore += 2\n\t\t\t\t}\n\t\t\t}\n",
		New:   "",
		Extra: [][2]string{{"\t\tdesc := terms(s.Description)\n", ""}},
		Pkgs:  []string{"./backend/tools"},
	},
	{
		ID: "R2-visible-unsorted", Spec: "R2", What: "the visible tools are not sorted by name",
		File: "backend/tools/registry.go",
		Old:  "\tslices.Sort(names)\n\treturn names\n}\n\n// Candidates", New: "\treturn names\n}\n\n// Candidates",
		Pkgs: []string{"./backend/tools"},
	},
	{
		ID: "E1-deferred-always-visible", Spec: "E1,K3", What: "deferred tools are offered before tool_search activated them",
		File: "backend/tools/registry.go",
		Old:  "\t\t\tif !f.Active[name] {\n\t\t\t\tcontinue\n\t\t\t}\n", New: "",
		Pkgs: []string{"./backend/tools", "./tests"}, Run: "TestRegistryVisibleAndSchemas|TestDeferredActivationLastsOneTurn",
	},
	{
		ID: "O1-head-keeps-a-line-more", Spec: "O1", What: "the head cut keeps one line more than its limit",
		File: "backend/tools/truncate.go",
		Old:  "\t\tpos, n := 0, 0\n\t\tfor n < l.Lines {", New: "\t\tpos, n := 0, 0\n\t\tfor n <= l.Lines {",
		Pkgs: []string{"./backend/tools"},
	},
	{
		ID: "O3-tail-miscounts-cut-line", Spec: "O3", What: "the tail cut does not count the partly dropped line",
		File: "backend/tools/truncate.go",
		Old:  "\tif start > 0 && start < len(s) && s[start-1] != '\\n' {\n\t\tc.Lines++\n\t}\n", New: "",
		Pkgs: []string{"./backend/tools"},
	},
	{
		ID: "D1-permanent-delete", Spec: "D1", What: "delete removes for good instead of moving to the trash",
		File:  "backend/tools/files/delete.go",
		Old:   "func trashLoc(tr Trash, l loc) (trash.Item, error) {\n",
		New:   "func trashLoc(tr Trash, l loc) (trash.Item, error) {\n\tif l.path != \"\" {\n\t\treturn trash.Item{}, os.RemoveAll(l.path)\n\t}\n",
		Extra: [][2]string{{"\t\"fmt\"\n\t\"strings\"\n", "\t\"fmt\"\n\t\"os\"\n\t\"strings\"\n"}},
		Pkgs:  []string{"./tests"}, Run: "TestDeleteModesThroughTheEngine",
	},
	{
		ID: "F1-write-mode-after-is-before", Spec: "F1", What: "write records the mode before as the mode after",
		File: "backend/tools/files/write.go",
		Old:  "\tchange.ModeAfter = after.Mode\n\ttext := fmt.Sprintf(\"Created", New: "\tchange.ModeAfter = change.ModeBefore\n\ttext := fmt.Sprintf(\"Created",
		Pkgs: []string{"./tests"}, Run: "TestFileToolsThroughTheKernel",
	},
	{
		ID: "F1-change-mode-after-is-before", Spec: "F1", What: "every File Change records the mode before as the mode after",
		File: "backend/tools/files/change.go",
		Old:  "ModeBefore: before.Mode, ModeAfter: after.Mode,", New: "ModeBefore: before.Mode, ModeAfter: before.Mode,",
		Pkgs: []string{"./tests"}, Run: "TestFileToolsThroughTheKernel",
	},
	{
		ID: "A2-escalation-unasked", Spec: "A2", What: "bash with sandbox: false runs unsandboxed as a plain shell action (allowed in Auto)",
		File: "backend/tools/shell/bash.go",
		Old:  "p.restricted, p.kind, p.escalated = false, approval.ShellEscalate, true", New: "p.restricted, p.kind, p.escalated = false, approval.Shell, true",
		Pkgs: []string{"./backend/tools/shell"}, Run: "TestBashEscalation|TestBashPerMode",
	},

	// --- backend/sandbox ---
	{
		ID: "X1-signal-leader-only", Spec: "X1", What: "cancel signals the leader, not its process group",
		File: "backend/sandbox/launch_linux.go",
		Old:  "\ttarget := -g.pid\n", New: "\ttarget := g.pid\n",
		Pkgs: []string{"./backend/sandbox"}, Run: "TestCancelKillsTree|TestCancelKillsEscapedProcess|TestKillBackgroundTree|TestCancelTermsTheWholeTree",
	},
	{
		ID: "B2-ring-keeps-the-head", Spec: "B2,O2", What: "a write larger than the ring keeps its head, not its tail",
		File: "backend/sandbox/ring.go",
		Old:  "\tif len(p) > size {\n\t\tp = p[len(p)-size:]\n\t}\n", New: "\tif len(p) > size {\n\t\tp = p[:size]\n\t}\n",
		Pkgs: []string{"./backend/sandbox"}, Run: "TestRingMatchesReference|TestHugeOutputBounded|TestOutputEdges|TestBackgroundReadBounded",
	},
	{
		ID: "A2-protected-writable", Spec: "A2", What: ".foya, .agents and .git stay writable in the sandbox",
		File: "backend/sandbox/sandbox.go",
		Old:  "\t\tif fspath.WithinAny(sp.writable, canon) {\n\t\t\tsp.readOnly = append(sp.readOnly, canon)\n\t\t}\n",
		New:  "\t\tif fspath.WithinAny(sp.writable, canon) && false {\n\t\t\tsp.readOnly = append(sp.readOnly, canon)\n\t\t}\n",
		Pkgs: []string{"./backend/sandbox"}, Run: "TestEscapes|TestReadOnlyCreated",
	},
	{
		ID: "A1-hidden-readable", Spec: "A1", What: "the hidden paths (credential stores, Foya's data) stay readable",
		File: "backend/sandbox/sandbox.go",
		Old:  "\tfor _, p := range cmd.Policy.Hidden {", New: "\tfor _, p := range cmd.Policy.Hidden[:0] {",
		Pkgs: []string{"./backend/sandbox"}, Run: "TestHiddenPaths",
	},
}
