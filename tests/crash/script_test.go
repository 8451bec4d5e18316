package crash

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"

	pt "foya/backend/provider/providertest"
)

// Kinds of scripted calls.
const (
	kindWrite  = "write"
	kindEdit   = "edit"
	kindDelete = "delete"
	kindBash   = "bash" // in the foreground
	kindBg     = "bg"   // bash with run_in_background
	kindRead   = "read" // read, ls, glob, grep: parallel-safe, change nothing
)

// script is one run's scripted model: turns of tool calls, then a last
// answer in text.
type script struct {
	turns []pt.Turn
	kinds map[string]string // call ID → kind
	calls int
}

// paths are the files the file tools work on (relative to the workspace);
// the deep one makes write create folders.
var paths = []string{"a.txt", "b.txt", "sub/c.txt", "sub/deep/d.txt"}

// plan writes a script from rng. log is the file every shell command
// appends its call ID to, pids the folder where background commands leave
// their process ID; both are outside the workspace, so no File Change
// covers them. Shell commands write only files of their own
// (shell_<id>.txt), so that every File Change of the file tools must
// match the disk: until shell changes are recorded, a shell command that
// changed a.txt would break that without Foya being at fault.
func plan(rng *rand.Rand, log, pids string) script {
	s := script{kinds: map[string]string{}}
	content := map[string]string{} // what the model expects on disk, when it exists
	steps := 6 + rng.IntN(6)
	for step := range steps {
		var calls []pt.Call
		for j := range 1 + rng.IntN(4) {
			id := fmt.Sprintf("s%dc%d", step, j)
			p := paths[rng.IntN(len(paths))]
			cur, exists := content[p]
			kind := []string{kindWrite, kindWrite, kindEdit, kindDelete, kindBash, kindBg, kindRead, kindRead}[rng.IntN(8)]
			if (kind == kindEdit || kind == kindDelete) && !exists {
				kind = kindWrite
			}
			var c pt.Call
			switch kind {
			case kindWrite:
				// Sizes up to 256 KiB, so some writes take long enough to
				// be killed in the middle.
				body := "written by " + id + "\n" + strings.Repeat("some line of text\n", rng.IntN(1<<rng.IntN(15)))
				content[p] = body
				c = call(id, "write", map[string]any{"path": p, "content": body})
			case kindEdit:
				first, rest, _ := strings.Cut(cur, "\n")
				content[p] = "edited by " + id + "\n" + rest
				c = call(id, "edit", map[string]any{"path": p, "old_string": first + "\n", "new_string": "edited by " + id + "\n"})
			case kindDelete:
				delete(content, p)
				c = call(id, "delete", map[string]any{"path": p})
			case kindBash:
				cmd := fmt.Sprintf("printf '%%s\\n' %s >> %s && printf '%%s' %s > shell_%s.txt", id, shq(log), id, id)
				c = call(id, "bash", map[string]any{"command": cmd})
			case kindBg:
				cmd := fmt.Sprintf("printf '%%s\\n' %s >> %s; echo $$ > %s; exec sleep 30", id, shq(log), shq(filepath.Join(pids, id+".pid")))
				c = call(id, "bash", map[string]any{"command": cmd, "run_in_background": true})
			case kindRead:
				switch rng.IntN(4) {
				case 0:
					c = call(id, "read", map[string]any{"path": p})
				case 1:
					c = call(id, "ls", map[string]any{"path": "."})
				case 2:
					c = call(id, "glob", map[string]any{"pattern": "**/*.txt"})
				default:
					c = call(id, "grep", map[string]any{"pattern": "by s[0-9]+c"})
				}
			}
			s.kinds[id] = kind
			calls = append(calls, c)
		}
		s.calls += len(calls)
		s.turns = append(s.turns, pt.Turn{Text: fmt.Sprintf("step %d", step), Calls: calls})
	}
	s.turns = append(s.turns, pt.Say("done"))
	return s
}

// events estimates how many events the script's run prints, to draw the
// moment of the kill from: run and step starts and ends, text, and for each
// call its begin, argument updates and end.
func (s script) events() int { return 3 + 4*len(s.turns) + 5*s.calls }

func call(id, name string, args map[string]any) pt.Call {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return pt.Call{ID: id, Name: name, Arguments: string(b)}
}

// shq quotes s for a POSIX shell.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
