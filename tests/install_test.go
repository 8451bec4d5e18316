package tests

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"foya/backend/testwait"
)

// TestMakeInstallPrefixWithSpace: `make install PREFIX='/path with space'`
// writes a menu entry that runs the installed binary: its Exec is quoted as
// the Desktop Entry Specification says (desktop-file-validate accepts the
// file where it is installed), read back by the spec's rules it is the
// binary's absolute path, and run it starts that binary; make uninstall
// removes what install put there, the sandbox helper too. The build and the
// icons are given (make -o build -o icons, BIN, HELPER and ICON_DIR): this
// test is about the install step.
func TestMakeInstallPrefixWithSpace(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("make install is for Linux desktops")
	}
	if _, err := exec.LookPath("make"); err != nil {
		testwait.Missing(t, "make (Debian package make)", "make install with a space in PREFIX")
	}
	tmp := t.TempDir()
	marker := filepath.Join(tmp, "ran")
	bin := filepath.Join(tmp, "foya-built")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"$0\" > '"+marker+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(tmp, "foya-sandbox-built")
	if err := os.WriteFile(helper, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	icons := filepath.Join(tmp, "icons")
	for _, s := range []int{16, 32, 48, 64, 128, 256, 512} {
		dir := filepath.Join(icons, fmt.Sprintf("%dx%d", s, s), "apps")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "foya.png"), []byte("png"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"with space", "it's (a) 50% test"} {
		t.Run(name, func(t *testing.T) {
			os.Remove(marker)
			prefix := filepath.Join(tmp, name, "local")
			make := func(target string) string {
				t.Helper()
				cmd := exec.Command("make", "--no-print-directory", "-o", "build", "-o", "icons", target,
					"PREFIX="+prefix, "BIN="+bin, "HELPER="+helper, "ICON_DIR="+icons)
				cmd.Dir = ".."
				cmd.Env = append(os.Environ(), "HOME="+tmp, "MAKEFLAGS=")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("make %s PREFIX=%q: %v\n%s", target, prefix, err, out)
				}
				return string(out)
			}
			out := make("install")
			installed := filepath.Join(prefix, "bin", "foya")
			if !strings.Contains(out, "installed "+installed) {
				t.Errorf("make install says:\n%s\nwant it to name %s", out, installed)
			}
			small := filepath.Join(prefix, "lib", "foya", "foya-sandbox")
			if fi, err := os.Stat(small); err != nil || fi.Mode().Perm() != 0o755 {
				t.Errorf("the sandbox helper at %s: %v; want it installed, mode 0755", small, err)
			}
			entry := filepath.Join(prefix, "share", "applications", "foya.desktop")
			if v, err := exec.LookPath("desktop-file-validate"); err == nil {
				if out, err := exec.Command(v, entry).CombinedOutput(); err != nil || strings.Contains(string(out), "error:") {
					t.Errorf("desktop-file-validate %s: %v\n%s", entry, err, out)
				}
			}
			args := execArgs(t, entry)
			if len(args) != 1 || args[0] != installed {
				t.Fatalf("Exec reads as %q; want the one argument %q", args, installed)
			}
			if err := exec.Command(args[0], args[1:]...).Run(); err != nil {
				t.Fatalf("running the entry's Exec: %v", err)
			}
			if b, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(b)) != installed {
				t.Fatalf("the entry ran %q (%v); want %s", b, err, installed)
			}
			make("uninstall")
			for _, p := range []string{installed, small, entry, filepath.Join(prefix, "share", "icons", "hicolor", "48x48", "apps", "foya.png")} {
				if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("after make uninstall %s: %v; want it gone", p, err)
				}
			}
		})
	}
}

// execArgs reads the Exec key of a desktop entry as the Desktop Entry
// Specification says: the string escapes first (\s \n \t \r \\), then the
// quoting rules (an argument in double quotes, where \" \` \$ \\ stand for
// the character), and %% for a literal %. A reserved character outside
// quotes, or another field code, fails the test.
func execArgs(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var value string
	found := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Exec="); ok {
			value, found = v, true
		}
	}
	if !found {
		t.Fatalf("%s has no Exec key", file)
	}
	var s strings.Builder // the string escapes
	for i := 0; i < len(value); i++ {
		if value[i] != '\\' || i+1 == len(value) {
			s.WriteByte(value[i])
			continue
		}
		i++
		switch value[i] {
		case 's':
			s.WriteByte(' ')
		case 'n':
			s.WriteByte('\n')
		case 't':
			s.WriteByte('\t')
		case 'r':
			s.WriteByte('\r')
		case '\\':
			s.WriteByte('\\')
		default:
			t.Fatalf("Exec %q: unknown string escape \\%c", value, value[i])
		}
	}
	line := s.String()
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\\' && i+1 < len(line) && strings.IndexByte("\"`$\\", line[i+1]) >= 0:
			i++
			cur.WriteByte(line[i])
		case quoted && c == '"':
			quoted = false
		case quoted && strings.IndexByte("\"`$\\", c) >= 0:
			t.Fatalf("Exec %q: %c in quotes without a backslash", value, c)
		case !quoted && c == '"':
			quoted, inArg = true, true
		case !quoted && c == ' ':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		case !quoted && strings.IndexByte("\t\n'\\><~|&;$*?#`()", c) >= 0:
			t.Fatalf("Exec %q: the reserved character %q outside quotes", value, c)
		case c == '%':
			if i+1 == len(line) || line[i+1] != '%' {
				t.Fatalf("Exec %q: a %% that is not %%%%", value)
			}
			i++
			cur.WriteByte('%')
			inArg = true
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if quoted {
		t.Fatalf("Exec %q: a quote is not closed", value)
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args
}
