package crash

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"

	pt "foya/backend/provider/providertest"
)

// bgTracked lets background commands change the tracked files. On by
// default since background commands are stored and the look before a
// command gives a live one's changes to it (docs/reliability.md,
// "Background commands stored"); -bg-tracked=false leaves them their own
// files, as the short form did while those changes were recorded by
// nobody in about 2 kills in 100.
var bgTracked = flag.Bool("bg-tracked", true, "let background commands change the tracked files")

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
// covers them. Shell commands change the tracked files too (append, rm,
// mv, chmod, truncate -s0), and a background command appends to one after
// a pause: their changes are File Changes like the file tools', held to
// the same checks.
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
			if kind == kindEdit && cur == "" || kind == kindDelete && !exists {
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
				// The command appends its call ID to the log first, then
				// changes a tracked file the way the model expects.
				pre := fmt.Sprintf("printf '%%s\\n' %s >> %s && ", id, shq(log))
				var op string
				switch rng.IntN(6) {
				case 0: // append (creating the file when it is not there)
					line := "appended by " + id + "\n"
					content[p] = cur + line
					op = fmt.Sprintf("mkdir -p %s && printf 'appended by %%s\\n' %s >> %s", shq(filepath.Dir(p)), id, shq(p))
				case 1:
					delete(content, p)
					op = "rm -f " + shq(p)
				case 2: // mv onto another tracked path
					q := paths[rng.IntN(len(paths))]
					if !exists || q == p {
						op = fmt.Sprintf("printf '%%s' %s > shell_%s.txt", id, id)
						break
					}
					content[q] = cur
					delete(content, p)
					op = fmt.Sprintf("mkdir -p %s && mv -f %s %s", shq(filepath.Dir(q)), shq(p), shq(q))
				case 3:
					op = fmt.Sprintf("chmod %o %s 2>/dev/null; true", []int{0o600, 0o644, 0o755}[rng.IntN(3)], shq(p))
				case 4:
					if exists {
						content[p] = ""
					}
					op = "truncate -s0 " + shq(p) + " 2>/dev/null; true"
				default: // a file of its own
					op = fmt.Sprintf("printf '%%s' %s > shell_%s.txt", id, id)
				}
				c = call(id, "bash", map[string]any{"command": pre + op})
			case kindBg:
				pid := fmt.Sprintf("printf '%%s\\n' %s >> %s; echo $$ > %s; ", id, shq(log), shq(filepath.Join(pids, id+".pid")))
				var cmd string
				if r := rng.IntN(2); r == 0 && *bgTracked {
					// It appends to a tracked file after a pause and ends:
					// its changes are recorded when it ends, or, killed
					// with foya before that, by recovery.
					content[p] = cur + "background " + id + "\n"
					cmd = pid + fmt.Sprintf("sleep 0.%d; mkdir -p %s && printf 'background %%s\\n' %s >> %s",
						1+rng.IntN(3), shq(filepath.Dir(p)), id, shq(p))
				} else {
					// It outlives the run, and must die with foya.
					cmd = pid + fmt.Sprintf("printf '%%s' %s > shell_%s.txt; exec sleep 30", id, id)
				}
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
