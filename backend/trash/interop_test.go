//go:build linux

package trash

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"foya/backend/testwait"
)

// command runs a trash tool of another implementation with the test's
// home as its whole world.
func (e *env) command(t *testing.T, dir, stdin string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_DATA_HOME="+e.data, "LC_ALL=C.UTF-8")
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func needCommand(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		testwait.Missing(t, name+" (Debian package "+pkg+")", "interoperability with "+name)
	}
}

// spec: D1
func TestTrashCLISeesAndRestoresFoyaItems(t *testing.T) {
	needCommand(t, "trash-list", "trash-cli")
	needCommand(t, "trash-restore", "trash-cli")
	e := newEnv(t)
	names := []string{"plain.txt", "with space.txt", "100%.txt", "ünïcode-日本.txt", "dir one"}
	for _, n := range names {
		p := filepath.Join(e.work, n)
		if n == "dir one" {
			writeFile(t, filepath.Join(p, "inner.txt"), "inner")
		} else {
			writeFile(t, p, "content of "+n)
		}
		if _, err := e.tr.Put(p); err != nil {
			t.Fatalf("Put(%s): %v", p, err)
		}
	}

	out, err := e.command(t, e.work, "", "trash-list")
	if err != nil {
		t.Fatalf("trash-list: %v\n%s", err, out)
	}
	for _, n := range names {
		line := "2024-03-05 14:07:09 " + filepath.Join(e.work, n)
		if !containsLine(out, line) {
			t.Errorf("trash-list output lacks %q:\n%s", line, out)
		}
	}

	// trash-restore lists the items under the given path and reads the
	// chosen index from standard input.
	target := filepath.Join(e.work, "with space.txt")
	out, err = e.command(t, e.work, "0\n", "trash-restore", target)
	if err != nil {
		t.Fatalf("trash-restore: %v\n%s", err, out)
	}
	if got := readFile(t, target); got != "content of with space.txt" {
		t.Fatalf("trash-restore brought back %q:\n%s", got, out)
	}
	mustNotExist(t, filepath.Join(e.trashRoot(), "info", "with space.txt.trashinfo"))
	items := listUnder(t, e.tr, e.trashRoot())
	if len(items) != len(names)-1 {
		t.Errorf("Foya lists %d items after trash-restore; want %d", len(items), len(names)-1)
	}

	// gio reads the same trash through the GVfs trash backend, which needs
	// a session bus; dbus-run-session gives it a private one.
	t.Run("gio trash --list", func(t *testing.T) {
		needCommand(t, "gio", "libglib2.0-bin")
		args := []string{"gio", "trash", "--list"}
		if _, err := exec.LookPath("dbus-run-session"); err == nil {
			args = append([]string{"dbus-run-session", "--"}, args...)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // bounds a hung bus, asserts nothing
		defer cancel()
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir = e.work
		cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_DATA_HOME="+e.data, "LC_ALL=C.UTF-8")
		cmd.WaitDelay = 5 * time.Second
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			testwait.Missing(t, fmt.Sprintf("gio trash --list (Debian packages gvfs and dbus-daemon: %v: %s)", err, strings.TrimSpace(stderr.String())), "gio listing Foya's trash")
		}
		listed := unescapeHexBytes(string(out)) // gio prints \xNN for bytes outside its locale
		for _, n := range names {
			if n == "with space.txt" { // restored above
				continue
			}
			if !strings.Contains(listed, "\t"+filepath.Join(e.work, n)+"\n") {
				t.Errorf("gio trash --list lacks %s:\n%s", n, out)
			}
		}
	})
}

// spec: D1
func TestFoyaRestoresItemsOfOtherTools(t *testing.T) {
	tools := []struct {
		name, pkg string
		args      []string
	}{
		{"trash-put", "trash-cli", nil},
		{"gio", "libglib2.0-bin", []string{"trash"}},
	}
	for _, tool := range tools {
		t.Run(tool.name, func(t *testing.T) {
			needCommand(t, tool.name, tool.pkg)
			e := newEnv(t)
			p := filepath.Join(e.work, "from "+tool.name+" 100%.txt")
			writeFile(t, p, "bytes")
			d := filepath.Join(e.work, "folder")
			writeFile(t, filepath.Join(d, "f"), "f")
			for _, x := range []string{p, d} {
				if out, err := e.command(t, e.work, "", tool.name, append(tool.args, x)...); err != nil {
					t.Fatalf("%s %s: %v\n%s", tool.name, x, err, out)
				}
				mustNotExist(t, x)
			}
			items := listUnder(t, e.tr, e.trashRoot())
			if len(items) != 2 {
				t.Fatalf("Foya lists %+v; want the 2 items %s trashed", items, tool.name)
			}
			for _, it := range items {
				if it.OriginalPath != p && it.OriginalPath != d {
					t.Errorf("OriginalPath = %q; want %q or %q", it.OriginalPath, p, d)
				}
				if it.DeletedAt.IsZero() {
					t.Errorf("DeletedAt of %s not read", it.OriginalPath)
				}
				if err := e.tr.Restore(it); err != nil {
					t.Fatalf("Restore(%s): %v", it.OriginalPath, err)
				}
			}
			if got := readFile(t, p); got != "bytes" {
				t.Errorf("restored content = %q", got)
			}
			mustExist(t, filepath.Join(d, "f"))
		})
	}
}

func containsLine(out, line string) bool {
	for _, l := range strings.Split(out, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// unescapeHexBytes turns gio's \xNN escapes back into bytes.
func unescapeHexBytes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i+3 < len(s) && s[i] == '\\' && s[i+1] == 'x' {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
