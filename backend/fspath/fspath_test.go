package fspath

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWithin pins the meaning, one row per rule of the package comment.
// The rows marked "was:" are where the four checks this package replaced
// disagreed (found by fuzzing them against each other); the answer kept is
// the safe one.
//
// spec: A1, D2
func TestWithin(t *testing.T) {
	for _, c := range []struct {
		root, p string
		want    bool
		rel     string
	}{
		{"/w", "/w", true, "."},
		{"/w", "/w/a/b", true, "a/b"},
		{"/w", "/wx", false, ""},
		{"/w", "/", false, ""},
		{"/", "/x", true, "x"},
		{"/", "/", true, "."},
		{"/w", "/w/..b", true, "..b"}, // a name that starts with two dots
		// was: the sandbox said "/w/" does not hold "/w" (trailing
		// separator); the rest said it does. The same folder holds itself.
		{"/w/", "/w", true, "."},
		{"//w", "/w/x", true, "x"},
		{"/w/.", "/w/./x/", true, "x"},
		// was: the sandbox said an empty root holds every absolute path;
		// the rest said nothing. An empty root holds nothing.
		{"", "/x", false, ""},
		{"", "", false, ""},
		// was: the sandbox said "/w/../etc" is inside "/w" (a string
		// prefix); the rest cleaned it to "/etc". Neither is safe when an
		// element before ".." is a link: ".." makes it false.
		{"/w", "/w/../etc", false, ""},
		{"/w", "/w/link/../x", false, ""}, // the others said true
		{"/w/..", "/etc", false, ""},      // the others said true
		// was: the other three compared relative paths ("." holds "x");
		// the sandbox did not. Relative paths are inside nothing.
		{".", "x", false, ""},
		{"a", "a/b", false, ""},
		{"/w", "w/x", false, ""},
		{"w", "/w/x", false, ""},
		// Byte for byte: a case-folding file system may call these one
		// folder; the answer is "outside", the side that asks.
		{"/W", "/w/x", false, ""},
	} {
		rel, ok := Rel(c.root, c.p)
		if ok != c.want || rel != filepath.FromSlash(c.rel) {
			t.Errorf("Rel(%q, %q) = %q, %v; want %q, %v", c.root, c.p, rel, ok, c.rel, c.want)
		}
		if got := Within(c.root, c.p); got != c.want {
			t.Errorf("Within(%q, %q) = %v; want %v", c.root, c.p, got, c.want)
		}
	}
	if !WithinAny([]string{"/a", "/w"}, "/w/x") || WithinAny([]string{"/a", ""}, "/w/x") || WithinAny(nil, "/") {
		t.Error("WithinAny does not ask Within of each root")
	}
}

// relReference is the answer filepath.Rel gives, as three of the four old
// checks computed it; on clean absolute paths it is the meaning to keep.
func relReference(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// prefixReference is the sandbox's old string-prefix check.
func prefixReference(root, p string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// FuzzWithin holds Within to the old checks where they all agreed (clean
// absolute paths) and, for any input, to its own rules: true only for
// absolute paths without "..", Rel joined back onto root gives the path,
// separators and "." do not change the answer, and containment is an order
// (a folder holds itself, holding is transitive through parents, two
// paths that hold each other are one).
//
// spec: A1, D2
func FuzzWithin(f *testing.F) {
	for _, s := range [][2]string{
		{"/w", "/w/a"}, {"/w", "/wx"}, {"/", "/x"}, {"/w/", "/w"}, {"", "/x"}, {"/w", "/w/../etc"},
		{"a", "a/b"}, {"/w/..", "/etc"}, {"/w", "/w/..b"}, {"//0", "/0"}, {".", "0"}, {"/w/.", "/w/./x//"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, root, p string) {
		rel, ok := Rel(root, p)
		if ok != Within(root, p) {
			t.Fatalf("Rel(%q, %q) says %v, Within says otherwise", root, p, ok)
		}
		cleanAbs := func(s string) bool { return filepath.IsAbs(s) && s == filepath.Clean(s) }
		if cleanAbs(root) && cleanAbs(p) {
			if ref := relReference(root, p); ok != ref {
				t.Fatalf("Within(%q, %q) = %v; filepath.Rel says %v", root, p, ok, ref)
			}
			if ref := prefixReference(root, p); ok != ref {
				t.Fatalf("Within(%q, %q) = %v; the string prefix says %v", root, p, ok, ref)
			}
		}
		if filepath.IsAbs(root) && !hasDotDot(root) && !Within(root, root) {
			t.Fatalf("Within(%q, itself) = false", root)
		}
		if !ok {
			return
		}
		if !filepath.IsAbs(root) || !filepath.IsAbs(p) || hasDotDot(root) || hasDotDot(p) {
			t.Fatalf("Within(%q, %q) = true for a relative path or one with ..", root, p)
		}
		if got := filepath.Join(root, rel); got != filepath.Clean(p) {
			t.Fatalf("Rel(%q, %q) = %q; joined back it is %q", root, p, rel, got)
		}
		if rel != "." && (filepath.IsAbs(rel) || hasDotDot(rel) || rel != filepath.Clean(rel)) {
			t.Fatalf("Rel(%q, %q) = %q: not a clean path below root", root, p, rel)
		}
		sep := string(filepath.Separator)
		if !Within(root+sep, p) || !Within(root, p+sep) || !Within(root+sep+".", p+sep+"."+sep) {
			t.Fatalf("Within(%q, %q) changes with trailing separators or .", root, p)
		}
		if parent := filepath.Dir(filepath.Clean(root)); !Within(parent, p) {
			t.Fatalf("Within(%q, %q) but not Within(%q, ...)", root, p, parent)
		}
		if Within(p, root) && filepath.Clean(p) != filepath.Clean(root) {
			t.Fatalf("%q and %q hold each other but differ", root, p)
		}
		if rel != "." && !Within(root, filepath.Dir(filepath.Clean(p))) {
			t.Fatalf("Within(%q, %q) but not its folder", root, p)
		}
	})
}
