package approval

import (
	"slices"
	"strings"
	"testing"
)

// spec: D2, D3 — permanent-delete commands are found behind every form a
// shell allows; harmless look-alikes are not.
func TestPermanentDelete(t *testing.T) {
	deletes := []string{
		"rm -rf build", "/bin/rm x", "rmdir d", "unlink f", "shred -u f",
		"find . -name '*.o' -delete", "find . -exec rm {} \\;", "find . -execdir /usr/bin/rm -f {} +",
		"git clean -fdx", "git -C repo clean --force", "git clean -xf",
		"make && rm -rf dist", "true; rm x", "ls | xargs rm", "ls | xargs -0 -n 1 rm -f",
		"(cd x && rm y)", "echo $(rm x)", "echo `rm x`", "env FOO=1 rm x", "sudo rm -rf /", "sudo -u root rm x",
		"command rm x", "busybox rm x", "nice -n 5 rm x", "timeout 5 rm x", "sh -c 'rm -rf x'",
		"bash -c \"cd a && rm b\"", "eval 'rm x'", "if true; then rm x; fi", "for f in *; do rm \"$f\"; done",
		"\"rm\" x", "'rm' -r x", "x=1 rm y",
	}
	for _, src := range deletes {
		c, err := ParseCommand(src)
		if err != nil {
			t.Errorf("ParseCommand(%q): %v", src, err)
			continue
		}
		if len(c.PermanentDelete()) == 0 {
			t.Errorf("PermanentDelete(%q) found nothing", src)
		}
	}
	safe := []string{"ls -la", "git status", "git clean -n", "git clean --dry-run", "echo rm", "grep -r rm .",
		"go test ./...", "find . -name x", "cat rm.txt", "trash-put x", "npm run clean"}
	for _, src := range safe {
		c, err := ParseCommand(src)
		if err != nil {
			t.Errorf("ParseCommand(%q): %v", src, err)
			continue
		}
		if got := c.PermanentDelete(); len(got) != 0 {
			t.Errorf("PermanentDelete(%q) = %v; want nothing", src, got)
		}
	}
	if _, err := ParseCommand("echo 'unterminated"); err == nil || !strings.Contains(err.Error(), "does not parse") {
		t.Errorf("unterminated quote: %v", err)
	}
}

func TestPrefix(t *testing.T) {
	for src, want := range map[string][]string{
		"go test ./...":         {"go", "test"},
		"cd a && git status -s": {"git", "status"},
		"ls -la":                {"ls"},
		"python3 script.py":     {"python3"},
		"npm run build":         {"npm", "run"},
	} {
		c, _ := ParseCommand(src)
		if got := c.Prefix(); !slices.Equal(got, want) {
			t.Errorf("Prefix(%q) = %v; want %v", src, got, want)
		}
	}
}
