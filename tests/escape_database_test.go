//go:build linux

package tests

import "strings"

// databaseAttempts try Foya's own database from a command: a command
// that could write it could switch its session to Full
// Access or answer its own approvals, and one that could read it would
// send the history and the user's grants to the model. The ownership locks
// beside it decide which runs are alive. The sandbox hides all of them,
// wherever the database is; Full Access reaches them (the control).
var databaseAttempts = []escapeAttempt{
	{
		name: "read Foya's database", command: `head -c 16 FOYADB; echo`,
		happened: func(_ *escBox, res string) bool { return strings.Contains(res, "SQLite format 3") },
	},
	{
		name: "switch every session to Full Access in the database",
		command: `python3 -c 'import sqlite3; c = sqlite3.connect("FOYADB", timeout=5); ` +
			`c.execute("UPDATE sessions SET approval_mode = approval_mode"); c.commit(); print("sqlite wrote")'`,
		happened: func(_ *escBox, res string) bool { return strings.Contains(res, "sqlite wrote") },
	},
	{
		name: "see the ownership locks beside the database", command: `echo "locks: $(ls FOYADB.owners 2>/dev/null | wc -l)"`,
		happened: func(_ *escBox, res string) bool {
			return strings.Contains(res, "locks: ") && !strings.Contains(res, "locks: 0")
		},
	},
	{
		name: "plant a file among the ownership locks", command: `touch FOYADB.owners/planted && echo planted`,
		happened: func(_ *escBox, res string) bool { return strings.Contains(res, "planted\n") },
	},
}
