//go:build unix && !darwin

package trash

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// spec: D1
func TestPutWritesSpecInfoFile(t *testing.T) {
	tests := []struct {
		label   string
		name    string // file name to trash
		encoded string // its percent-encoded form in Path=
	}{
		{"plain", "plain.txt", "plain.txt"},
		{"space", "with space.txt", "with%20space.txt"},
		{"percent", "100%.txt", "100%25.txt"},
		{"non-ASCII", "ünïcode-日本.txt", "%C3%BCn%C3%AFcode-%E6%97%A5%E6%9C%AC.txt"},
		{"newline", "new\nline.txt", "new%0Aline.txt"},
		{"reserved", "a#b?c&d=e+f;g.txt", "a%23b%3Fc%26d%3De%2Bf%3Bg.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			e := newEnv(t)
			src := filepath.Join(e.work, tt.name)
			writeFile(t, src, "content of "+tt.name)

			it, err := e.tr.Put(src)
			if err != nil {
				t.Fatalf("Put(%q): %v", src, err)
			}
			mustNotExist(t, src)
			if got := readFile(t, it.TrashedPath); got != "content of "+tt.name {
				t.Errorf("trashed content = %q; want the original bytes", got)
			}
			wantTrashed := filepath.Join(e.trashRoot(), "files", tt.name)
			if it.TrashedPath != wantTrashed {
				t.Errorf("TrashedPath = %q; want %q", it.TrashedPath, wantTrashed)
			}
			if want := filepath.Join(e.trashRoot(), "info", tt.name+".trashinfo"); it.InfoPath != want {
				t.Errorf("InfoPath = %q; want %q", it.InfoPath, want)
			}
			if it.OriginalPath != src {
				t.Errorf("OriginalPath = %q; want %q", it.OriginalPath, src)
			}
			if !it.DeletedAt.Equal(fixedNow) {
				t.Errorf("DeletedAt = %v; want %v", it.DeletedAt, fixedNow)
			}
			want := "[Trash Info]\nPath=" + e.work + "/" + tt.encoded + "\nDeletionDate=2024-03-05T14:07:09\n"
			if got := readFile(t, it.InfoPath); got != want {
				t.Errorf("info file =\n%q\nwant\n%q", got, want)
			}
			for _, d := range []string{e.trashRoot(), filepath.Join(e.trashRoot(), "files"), filepath.Join(e.trashRoot(), "info")} {
				fi, err := os.Stat(d)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != 0o700 {
					t.Errorf("%s mode = %v; want 0700", d, fi.Mode().Perm())
				}
			}
		})
	}
}

// spec: D1
func TestPutCollisionsKeepEveryCopy(t *testing.T) {
	e := newEnv(t)
	var items []Item
	for i := range 3 {
		src := filepath.Join(e.work, "dir"+strconv.Itoa(i), "same.txt")
		writeFile(t, src, "copy "+strconv.Itoa(i))
		it, err := e.tr.Put(src)
		if err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
		items = append(items, it)
	}
	for i, name := range []string{"same.txt", "same.2.txt", "same.3.txt"} {
		it := items[i]
		if filepath.Base(it.TrashedPath) != name {
			t.Errorf("item %d trashed as %q; want %q", i, filepath.Base(it.TrashedPath), name)
		}
		if got := readFile(t, it.TrashedPath); got != "copy "+strconv.Itoa(i) {
			t.Errorf("item %d content = %q; want copy %d", i, got, i)
		}
		if !strings.Contains(readFile(t, it.InfoPath), "Path="+filepath.Join(e.work, "dir"+strconv.Itoa(i), "same.txt")+"\n") {
			t.Errorf("info of item %d does not name its original path", i)
		}
	}
	listed := listUnder(t, e.tr, e.trashRoot())
	if len(listed) != 3 {
		t.Fatalf("List() = %d items; want 3: %+v", len(listed), listed)
	}
	byPath := map[string]Item{}
	for _, it := range listed {
		byPath[it.OriginalPath] = it
	}
	for _, it := range items {
		if byPath[it.OriginalPath] != it {
			t.Errorf("List() has %+v for %s; want %+v", byPath[it.OriginalPath], it.OriginalPath, it)
		}
	}
}

func TestCandidateName(t *testing.T) {
	rnd := func() string { return "r4nd" }
	long := strings.Repeat("é", 200) + ".txt" // 404 bytes
	tests := []struct {
		base string
		n    int
		want string
	}{
		{"report.txt", 1, "report.txt"},
		{"report.txt", 2, "report.2.txt"},
		{"archive.tar.gz", 3, "archive.tar.3.gz"},
		{"Makefile", 2, "Makefile.2"},
		{".bashrc", 2, ".bashrc.2"},
		{"report.txt", 101, "report.r4nd.txt"},
		{long, 1, strings.Repeat("é", 122)},
		{long, 2, strings.Repeat("é", 119) + ".2.txt"},
	}
	for _, tt := range tests {
		got := candidateName(tt.base, tt.n, rnd)
		if got != tt.want {
			t.Errorf("candidateName(%.20q, %d) = %.40q; want %.40q", tt.base, tt.n, got, tt.want)
		}
		if len(got)+len(infoSuffix) > 255 {
			t.Errorf("candidateName(%.20q, %d) is %d bytes; NAME.trashinfo must fit in 255", tt.base, tt.n, len(got))
		}
	}
}

// spec: D1
func TestPutLongNameFitsNameLimit(t *testing.T) {
	e := newEnv(t)
	name := strings.Repeat("n", 250) // legal, but NAME.trashinfo would not be
	src := filepath.Join(e.work, name)
	writeFile(t, src, "long")
	it, err := e.tr.Put(src)
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	mustNotExist(t, src)
	if err := e.tr.Restore(it); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if got := readFile(t, src); got != "long" {
		t.Errorf("restored content = %q", got)
	}
}

// spec: D1
func TestPutFolderRecordsDirectorySize(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.work, "my folder")
	writeFile(t, filepath.Join(dir, "a.txt"), strings.Repeat("a", 10000))
	writeFile(t, filepath.Join(dir, "sub", "b.txt"), "b")
	if err := os.Link(filepath.Join(dir, "a.txt"), filepath.Join(dir, "sub", "a-link.txt")); err != nil {
		t.Fatal(err)
	}
	it, err := e.tr.Put(dir)
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	mustNotExist(t, dir)
	if got := readFile(t, filepath.Join(it.TrashedPath, "sub", "b.txt")); got != "b" {
		t.Errorf("folder content moved wrongly: %q", got)
	}
	sizes := readFile(t, filepath.Join(e.trashRoot(), "directorysizes"))
	fields := strings.Fields(sizes)
	if len(fields) != 3 || !strings.HasSuffix(sizes, "\n") {
		t.Fatalf("directorysizes = %q; want one line SIZE MTIME NAME", sizes)
	}
	if fields[2] != "my%20folder" {
		t.Errorf("directorysizes name = %q; want my%%20folder", fields[2])
	}
	fi, err := os.Stat(it.InfoPath)
	if err != nil {
		t.Fatal(err)
	}
	if fields[1] != strconv.FormatInt(fi.ModTime().Unix(), 10) {
		t.Errorf("directorysizes mtime = %s; want the info file's %d", fields[1], fi.ModTime().Unix())
	}
	if du, err := exec.LookPath("du"); err == nil {
		out, err := exec.Command(du, "-s", "-B1", it.TrashedPath).Output()
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Fields(string(out))[0]; fields[0] != want {
			t.Errorf("directorysizes size = %s; du -B1 says %s", fields[0], want)
		}
	} else {
		t.Log("du not found; size not cross-checked")
	}

	// A second folder adds a line; restoring the first removes only its own.
	other := filepath.Join(e.work, "other")
	writeFile(t, filepath.Join(other, "x"), "x")
	if _, err := e.tr.Put(other); err != nil {
		t.Fatal(err)
	}
	if err := e.tr.Restore(it); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	sizes = readFile(t, filepath.Join(e.trashRoot(), "directorysizes"))
	if strings.Contains(sizes, "my%20folder") || !strings.Contains(sizes, " other\n") {
		t.Errorf("after restore directorysizes = %q; want only the other folder", sizes)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); len(got) != 10000 {
		t.Errorf("restored a.txt has %d bytes", len(got))
	}
	mustNotExist(t, it.InfoPath)
}

func TestDirSizesKeepsForeignLines(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "directorysizes")
	writeFile(t, path, "4096 1700000000 name with bare spaces\n8192 1700000001 100%25 done\ngarbage line\n")
	tr := New(Options{Home: t.TempDir()})
	if err := tr.removeDirSize(root, "100% done"); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, path), "4096 1700000000 name with bare spaces\ngarbage line\n"; got != want {
		t.Errorf("directorysizes = %q; want %q", got, want)
	}
	if err := tr.removeDirSize(root, "name with bare spaces"); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, path), "garbage line\n"; got != want {
		t.Errorf("directorysizes = %q; want %q", got, want)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// spec: D1
func TestPutSymlinkTrashesTheLinkNotTheTarget(t *testing.T) {
	e := newEnv(t)
	target := filepath.Join(e.work, "target.txt")
	writeFile(t, target, "target bytes")
	targetDir := filepath.Join(e.work, "targetdir")
	writeFile(t, filepath.Join(targetDir, "inside.txt"), "inside")
	for _, tc := range []struct{ link, to string }{
		{filepath.Join(e.work, "link"), target},
		{filepath.Join(e.work, "dirlink"), targetDir},
		{filepath.Join(e.work, "dangling"), filepath.Join(e.work, "nowhere")},
	} {
		if err := os.Symlink(tc.to, tc.link); err != nil {
			t.Fatal(err)
		}
		it, err := e.tr.Put(tc.link)
		if err != nil {
			t.Fatalf("Put(%s): %v", tc.link, err)
		}
		mustNotExist(t, tc.link)
		fi, err := os.Lstat(it.TrashedPath)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("trashed %s is not a symlink (err %v)", tc.link, err)
		}
		if got, _ := os.Readlink(it.TrashedPath); got != tc.to {
			t.Errorf("trashed link points to %q; want %q", got, tc.to)
		}
		if err := e.tr.Restore(it); err != nil {
			t.Fatalf("Restore(%s): %v", tc.link, err)
		}
		if got, _ := os.Readlink(tc.link); got != tc.to {
			t.Errorf("restored link points to %q; want %q", got, tc.to)
		}
	}
	if got := readFile(t, target); got != "target bytes" {
		t.Errorf("target changed: %q", got)
	}
	if got := readFile(t, filepath.Join(targetDir, "inside.txt")); got != "inside" {
		t.Errorf("target folder changed: %q", got)
	}
}

// spec: D1
func TestPutThroughSymlinkedParentRecordsRealPath(t *testing.T) {
	e := newEnv(t)
	real := filepath.Join(e.work, "real")
	writeFile(t, filepath.Join(real, "f.txt"), "f")
	alias := filepath.Join(e.work, "alias")
	if err := os.Symlink(real, alias); err != nil {
		t.Fatal(err)
	}
	it, err := e.tr.Put(filepath.Join(alias, "f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(real, "f.txt"); it.OriginalPath != want {
		t.Errorf("OriginalPath = %q; want %q", it.OriginalPath, want)
	}
	mustExist(t, alias)
}

func TestPutBadInput(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.work, "keep.txt"), "keep")
	inTrash := filepath.Join(e.work, "x.txt")
	writeFile(t, inTrash, "x")
	it, err := e.tr.Put(inTrash)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		is         error  // wanted errors.Is target, if any
		contains   string // wanted message fragment
	}{
		{"empty", "", nil, "empty path"},
		{"missing", filepath.Join(e.work, "nope.txt"), fs.ErrNotExist, "nope.txt"},
		{"missing parent", filepath.Join(e.work, "no", "dir", "f"), fs.ErrNotExist, ""},
		{"root", "/", nil, "root"},
		{"home trash", e.trashRoot(), nil, "home trash"},
		{"trash files folder", filepath.Join(e.trashRoot(), "files"), nil, "home trash"},
		{"trashed item", it.TrashedPath, nil, "home trash"},
		{"info file", it.InfoPath, nil, "home trash"},
		{"home holding the trash", e.home, nil, "holds it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.tr.Put(tt.path)
			if err == nil {
				t.Fatalf("Put(%q) = nil error; want one", tt.path)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Put(%q) = %v; want it to wrap %v", tt.path, err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("Put(%q) = %q; want it to mention %q", tt.path, err, tt.contains)
			}
		})
	}
	mustExist(t, it.TrashedPath)
	mustExist(t, it.InfoPath)
	mustExist(t, filepath.Join(e.work, "keep.txt"))
	mustExist(t, e.trashRoot())
}

// spec: D1
func TestPutIntoReadOnlyTrashChangesNothing(t *testing.T) {
	for _, sub := range []string{"files", "info"} {
		t.Run(sub, func(t *testing.T) {
			e := newEnv(t)
			src := filepath.Join(e.work, "precious.txt")
			writeFile(t, src, "precious")
			if err := ensureHomeTrash(e.trashRoot()); err != nil {
				t.Fatal(err)
			}
			makeReadOnly(t, filepath.Join(e.trashRoot(), sub))

			_, err := e.tr.Put(src)
			if err == nil {
				t.Fatal("Put into a read-only trash succeeded")
			}
			if !strings.Contains(err.Error(), "precious.txt") || !errors.Is(err, fs.ErrPermission) {
				t.Errorf("Put error = %v; want it to name the file and wrap a permission error", err)
			}
			if got := readFile(t, src); got != "precious" {
				t.Errorf("original changed: %q", got)
			}
			for _, d := range []string{"files", "info"} {
				entries, _ := os.ReadDir(filepath.Join(e.trashRoot(), d))
				if len(entries) != 0 {
					t.Errorf("%s/ holds %v after a failed Put; want nothing (claim released)", d, entries)
				}
			}
		})
	}
}

// spec: D1
func TestPutKeepsOrphanInFiles(t *testing.T) {
	// Another tool left files/NAME without an info file: it must not be
	// overwritten by our rename.
	e := newEnv(t)
	writeFile(t, filepath.Join(e.trashRoot(), "files", "a.txt"), "orphan")
	if err := os.MkdirAll(filepath.Join(e.trashRoot(), "info"), 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(e.work, "a.txt")
	writeFile(t, src, "new")
	it, err := e.tr.Put(src)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(it.TrashedPath) != "a.2.txt" {
		t.Errorf("trashed as %s; want a.2.txt", filepath.Base(it.TrashedPath))
	}
	if got := readFile(t, filepath.Join(e.trashRoot(), "files", "a.txt")); got != "orphan" {
		t.Errorf("orphan overwritten: %q", got)
	}
	mustNotExist(t, filepath.Join(e.trashRoot(), "info", "a.txt.trashinfo"))
}

func TestListNewestFirst(t *testing.T) {
	e := newEnv(t)
	var now time.Time
	e.tr.now = func() time.Time { return now }
	base := time.Date(2023, 1, 2, 3, 4, 5, 0, time.Local)
	for i, name := range []string{"old", "newest", "middle"} {
		now = base.Add(time.Duration([]int{0, 2, 1}[i]) * time.Hour)
		src := filepath.Join(e.work, name)
		writeFile(t, src, name)
		if _, err := e.tr.Put(src); err != nil {
			t.Fatal(err)
		}
	}
	// Stale and malformed entries are left out, not fatal.
	writeFile(t, filepath.Join(e.trashRoot(), "info", "stale.trashinfo"), "[Trash Info]\nPath=/gone\nDeletionDate=2023-01-01T00:00:00\n")
	writeFile(t, filepath.Join(e.trashRoot(), "files", "bad"), "bad")
	writeFile(t, filepath.Join(e.trashRoot(), "info", "bad.trashinfo"), "not an info file")
	items := listUnder(t, e.tr, e.trashRoot())
	var got []string
	for _, it := range items {
		got = append(got, filepath.Base(it.OriginalPath))
	}
	if strings.Join(got, ",") != "newest,middle,old" {
		t.Errorf("List() order = %v; want newest,middle,old", got)
	}
}

func TestListEmptyWithoutTrash(t *testing.T) {
	e := newEnv(t)
	if items := listUnder(t, e.tr, e.trashRoot()); len(items) != 0 {
		t.Errorf("List() on a new home = %v; want no items", items)
	}
	mustNotExist(t, e.trashRoot())
}
