//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"foya/backend/sandbox/sandboxtest"
)

// TestHiddenPaths pins the sandbox's half of keeping secrets and Foya's
// database from commands: a
// Hidden folder (a credential store) and a Hidden file (.netrc) cannot be
// read, and a Hidden file inside the workspace (Foya's database) can be
// neither read nor written nor replaced, in every mechanism; without the
// sandbox all are readable. A ReadOnlyIfExists file stays read-only, and a
// missing one is not created.
//
// spec: A1, A2
func TestHiddenPaths(t *testing.T) {
	modes := append([]mode{plainMode}, restrictedModes(t)...)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			home := sandboxtest.Dir(t)
			os.Mkdir(filepath.Join(home, ".ssh"), 0o700)
			writeFile(t, filepath.Join(home, ".ssh", "id_rsa"), "SECRET-KEY\n")
			writeFile(t, filepath.Join(home, ".netrc"), "SECRET-NETRC\n")
			writeFile(t, filepath.Join(home, "notes"), "plain notes\n")
			db := filepath.Join(b.ws, "foya.db")
			writeFile(t, db, "SECRET-DB\n")
			writeFile(t, filepath.Join(b.ws, "pinned"), "pinned\n")
			pol := b.policy(m.restricted)
			pol.Hidden = []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".netrc"), db, db + "-wal"}
			pol.ReadOnlyIfExists = []string{filepath.Join(b.ws, "pinned"), filepath.Join(b.ws, "absent")}
			dir := filepath.Join(b.ws, "sub") // Landlock alone takes no new entries next to carved paths
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			script := `cat "$H/.ssh/id_rsa" "$H/.netrc" "$WS/foya.db" "$H/notes"; ls "$H/.ssh"
echo planted > "$WS/foya.db"; echo planted > "$WS/pinned"; mv "$WS/foya.db" "$WS/moved.db"; exit 0`
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := Run(ctx, Command{Script: script, Dir: dir, Env: b.env("H=" + home), Policy: pol})
			if err != nil {
				t.Fatal(err)
			}
			out := string(res.Output)
			if !strings.Contains(out, "plain notes") {
				t.Errorf("%s: a file next to the hidden ones is not readable:\n%s", m.name, out)
			}
			for _, secret := range []string{"SECRET-KEY", "SECRET-NETRC", "SECRET-DB"} {
				if strings.Contains(out, secret) != !m.restricted {
					t.Errorf("%s: %s shown %v; want %v:\n%s", m.name, secret, strings.Contains(out, secret), !m.restricted, out)
				}
			}
			dbNow, _ := os.ReadFile(db)
			pinned, _ := os.ReadFile(filepath.Join(b.ws, "pinned"))
			changed := string(dbNow) != "SECRET-DB\n" || string(pinned) != "pinned\n"
			if changed != !m.restricted {
				t.Errorf("%s: database %q, pinned %q; want them changed only without sandbox:\n%s", m.name, dbNow, pinned, out)
			}
			if exists(filepath.Join(b.ws, "absent")) {
				t.Errorf("%s: a missing ReadOnlyIfExists path was created", m.name)
			}
		})
	}
}

// TestInheritedDescriptorsAndRunnerUnreachable: a descriptor the runner
// holds without close-on-exec (a library's connection to a bus, a display,
// an agent) does not reach the command in any mode, Full Access included,
// and a confined command cannot read the runner's /proc environment, which
// holds what the filter keeps from the command's own (bubblewrap and the
// helper once passed such descriptors on, and root kept CAP_SYS_PTRACE
// under Landlock alone).
//
// spec: A1, A2
func TestInheritedDescriptorsAndRunnerUnreachable(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	unix.CloseOnExec(fds[0])
	if err := unix.SetNonblock(fds[0], true); err != nil {
		t.Fatal(err)
	}
	script := `for f in /proc/self/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && [ -S "$f" ] && echo hello >&"$n" && echo "wrote $n"; done
tr '\0' '\n' < /proc/$RUNNER/environ 2>/dev/null | grep -q '^PATH=' && echo RUNNER-ENVIRON-READ; exit 0`
	for _, m := range append([]mode{plainMode}, restrictedModes(t)...) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			res := b.run(t, m, script, "RUNNER="+strconv.Itoa(os.Getpid()))
			if n, _ := unix.Read(fds[0], make([]byte, 64)); n > 0 {
				t.Errorf("%s: the command wrote to a descriptor it inherited:\n%s", m.name, res.Output)
			}
			if m.restricted && strings.Contains(string(res.Output), "RUNNER-ENVIRON-READ") {
				t.Errorf("%s: the command read the runner's /proc environ:\n%s", m.name, res.Output)
			}
		})
	}
}
