//go:build linux

package files

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"foya/backend/fspath"
)

// fuzzSpace is a workspace with links that lead everywhere a path could
// try to go: inside, up and out with "..", to an absolute outside folder,
// in a loop, and dangling.
func fuzzSpace(f *testing.F) (wd, out string) {
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	wd, out = filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, d := range []string{wd + "/in/deep", out + "/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for p, content := range map[string]string{wd + "/a.txt": "a", wd + "/in/f": "f", out + "/secret": "s", out + "/sub/s2": "s"} {
		os.WriteFile(p, []byte(content), 0o644)
	}
	for name, target := range map[string]string{
		"up": "..", "abs": out, "inl": "in", "loop": "loop", "dangling": "nowhere/x",
		"in/back": "../..", "in/deep/rel": "../../../out/sub", "absfile": out + "/secret", "in/self": ".",
	} {
		if err := os.Symlink(target, filepath.Join(wd, name)); err != nil {
			f.Fatal(err)
		}
	}
	return wd, out
}

// FuzzResolveStaysInside checks, for any path string, that a target the
// classification calls inside is inside, and that the I/O of an inside
// target, which goes through the workspace root, never opens anything
// outside: every descriptor it gets names a path within the workspace.
// Outside targets are what the approval gateway is asked about.
//
// A folder swapped for a link must not carry a call outside.
// spec: A1, D2
func FuzzResolveStaysInside(f *testing.F) {
	wd, _ := fuzzSpace(f)
	for _, s := range []string{"a.txt", "in/f", "up/out/secret", "abs/secret", "inl/f", "in/back/out/secret",
		"in/deep/rel/s2", "loop/x", "dangling", "absfile", "../out/secret", "/", ".", "in/self/self/f", "a\x00b", "in//./f/",
		wd + "/abs/secret", wd + "/../out/secret", string(make([]byte, 300))} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, p string, followLast bool) {
		tg, err := resolve(wd, p, followLast)
		if err != nil {
			return
		}
		defer tg.close()
		if _, ok := fspath.Rel(wd, tg.Real); ok != tg.Inside {
			t.Fatalf("resolve(%q): Real %s, Inside %v", p, tg.Real, tg.Inside)
		}
		if !tg.Inside {
			if tg.root != nil {
				t.Fatalf("resolve(%q): an outside target has the workspace root", p)
			}
			return
		}
		l := tg.loc()
		check := func(what string, file *os.File) {
			defer file.Close()
			real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(file.Fd())))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := fspath.Rel(wd, real); !ok {
				t.Fatalf("resolve(%q) %s opened %s, outside the workspace %s", p, what, real, wd)
			}
		}
		if file, err := l.open(); err == nil {
			check("open", file)
		}
		if file, err := l.parent().openDirFile(); err == nil {
			check("open the folder", file)
		}
		if h, err := openDirHandle(l); err == nil {
			check("open for a walk", h.f)
		}
		if r, err := l.parent().openFolder(); err == nil {
			file, err := r.Open(".")
			if err == nil {
				check("open the folder as a root", file)
			}
			r.Close()
		}
		st, err := snapshot(l, 1<<10)
		if err == nil && st.Exists && !st.IsDir && !st.Link && string(st.Data) == "s" {
			t.Fatalf("resolve(%q): snapshot read the outside secret", p)
		}
	})
}
