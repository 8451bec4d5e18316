// Command mutate is Foya's mutation testing: it applies each mutation of
// mutations.go (one exact snippet of one file replaced, each naming the
// requirement it breaks) to a copy of the tree, one at a time, runs the
// tests that should notice with a timeout, and reports each mutation as
// killed (a test failed or timed out) or survived (every test passed). A
// survivor is a hole in the tests: it gets a test, or a line in
// docs/reliability.md saying why no test can tell.
//
// Before the mutations it runs the same tests on the unmutated copy, once
// per package: a test that fails there would make every mutation look
// killed. A mutation whose snippet is not found exactly once, or whose
// mutated tree does not build, is reported as stale and fails the run, so
// the list keeps up with the code.
//
//	go run ./bench/mutate                 # every mutation (make mutate)
//	go run ./bench/mutate -only 'X2|P4'   # those whose ID matches
//	go run ./bench/mutate -list           # the list, nothing run
//
// It is CPU heavy (a test binary is built per mutation) and not part of
// make test; run one at a time.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// mutation is one deliberate bug: in File, the snippet Old (found exactly
// once) becomes New, and Edits are applied the same way.
type mutation struct {
	ID   string // short, unique: the spec ID first
	Spec string // the requirement IDs it breaks
	What string // the bug, in words
	File string // relative to the repository root
	Old  string
	New  string
	// Extra are further replacements in File (an import the new code needs).
	Extra [][2]string
	Pkgs  []string // the packages whose tests should kill it
	Run   string   // go test -run pattern; "" runs every test of Pkgs
}

type outcome string

const (
	killed   outcome = "killed"
	timedOut outcome = "killed (timeout)"
	survived outcome = "SURVIVED"
	stale    outcome = "STALE"
)

func main() {
	only := flag.String("only", "", "run only the mutations whose ID matches this regular expression")
	list := flag.Bool("list", false, "print the mutations and exit")
	check := flag.Bool("check", false, "check that every snippet applies, and exit")
	keep := flag.Bool("keep", false, "keep the copy of the tree (its path is printed)")
	timeout := flag.Duration("timeout", 4*time.Minute, "most time one mutation's tests may take (a hang counts as killed)")
	verbose := flag.Bool("v", false, "print the output of failing test runs")
	flag.Parse()

	var sel []mutation
	re, err := regexp.Compile(*only)
	if err != nil {
		fatalf("-only: %v", err)
	}
	for _, m := range mutations {
		if re.MatchString(m.ID) {
			sel = append(sel, m)
		}
	}
	if err := checkIDs(mutations); err != nil {
		fatalf("%v", err)
	}
	if *list {
		for _, m := range sel {
			fmt.Printf("%-28s %-8s %s: %s\n", m.ID, m.Spec, m.File, m.What)
		}
		return
	}
	if len(sel) == 0 {
		fatalf("no mutation matches %q", *only)
	}
	root, err := repoRoot()
	if err != nil {
		fatalf("%v", err)
	}
	// Every snippet must apply to the tree as it is: a stale mutation
	// fails the run before anything is copied.
	var bad []string
	for _, m := range sel {
		src, err := os.ReadFile(filepath.Join(root, m.File))
		if err == nil {
			_, err = m.apply(src)
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", m.ID, err))
		}
	}
	if len(bad) > 0 {
		fatalf("stale mutations (update bench/mutate/mutations.go):\n  %s", strings.Join(bad, "\n  "))
	}

	if *check {
		fmt.Printf("mutate: all %d snippets apply\n", len(sel))
		return
	}
	work, err := os.MkdirTemp("", "foya-mutate-")
	if err != nil {
		fatalf("%v", err)
	}
	code := run(root, work, sel, *timeout, *verbose)
	if !*keep {
		os.RemoveAll(work)
	}
	os.Exit(code)
}

// run mutates the copy of root at work once per mutation and reports; it
// returns the exit code.
func run(root, work string, sel []mutation, timeout time.Duration, verbose bool) int {
	if err := copyTree(root, work); err != nil {
		fmt.Fprintf(os.Stderr, "mutate: copy the tree: %v\n", err)
		return 2
	}
	fmt.Printf("mutate: %d mutations in a copy of the tree (%s)\n", len(sel), work)

	// The baseline: every package's selected tests pass unmutated.
	base := map[string][]string{} // the -run patterns per package
	all := map[string]bool{}      // packages some mutation runs every test of
	var pkgs []string
	for _, m := range sel {
		for _, p := range m.Pkgs {
			if _, ok := base[p]; !ok {
				pkgs = append(pkgs, p)
				base[p] = nil
			}
			if m.Run == "" {
				all[p] = true
			} else if !slices.Contains(base[p], m.Run) {
				base[p] = append(base[p], m.Run)
			}
		}
	}
	for _, p := range pkgs {
		run := strings.Join(base[p], "|")
		if all[p] {
			run = ""
		}
		start := time.Now()
		res, out := goTest(work, []string{p}, run, 2*timeout)
		passed := res == survived // "survived" here means: the tests passed
		fmt.Printf("baseline %-24s %s (%s)\n", p, map[bool]string{true: "passed", false: "FAILED"}[passed], time.Since(start).Round(time.Second))
		if !passed {
			fmt.Fprintf(os.Stderr, "mutate: the unmutated tests fail in %s; fix them first:\n%s\n", p, out)
			return 2
		}
	}

	counts := map[outcome]int{}
	var survivors []mutation
	for _, m := range sel {
		start := time.Now()
		res, out := m.try(work, timeout)
		counts[res]++
		fmt.Printf("%-28s %-18s %-8s (%s)\n", m.ID, res, m.Spec, time.Since(start).Round(time.Second))
		if res == survived {
			survivors = append(survivors, m)
		}
		if res == stale || verbose && res != survived {
			fmt.Println(indent(out))
		}
	}
	k := counts[killed] + counts[timedOut]
	fmt.Printf("\nmutate: %d killed, %d survived, %d stale (of %d)\n", k, counts[survived], counts[stale], len(sel))
	for _, m := range survivors {
		fmt.Printf("  survived %s (%s): %s in %s; tests: %s -run '%s'\n", m.ID, m.Spec, m.What, m.File, strings.Join(m.Pkgs, " "), m.Run)
	}
	if counts[survived]+counts[stale] > 0 {
		return 1
	}
	return 0
}

// apply returns src with m's replacements made, each snippet found once.
func (m mutation) apply(src []byte) ([]byte, error) {
	s := string(src)
	for _, r := range append([][2]string{{m.Old, m.New}}, m.Extra...) {
		switch n := strings.Count(s, r[0]); n {
		case 1:
			s = strings.Replace(s, r[0], r[1], 1)
		default:
			return nil, fmt.Errorf("%s: the snippet %q occurs %d times; want once", m.File, firstLine(r[0]), n)
		}
	}
	return []byte(s), nil
}

// try mutates the copy, runs the tests, and puts the file back.
func (m mutation) try(work string, timeout time.Duration) (outcome, string) {
	path := filepath.Join(work, m.File)
	orig, err := os.ReadFile(path)
	if err != nil {
		return stale, err.Error()
	}
	mutated, err := m.apply(orig)
	if err != nil {
		return stale, err.Error()
	}
	fi, err := os.Stat(path)
	if err != nil {
		return stale, err.Error()
	}
	if err := os.WriteFile(path, mutated, fi.Mode()); err != nil {
		return stale, err.Error()
	}
	defer os.WriteFile(path, orig, fi.Mode())
	res, out := goTest(work, m.Pkgs, m.Run, timeout)
	switch res {
	case survived:
		return survived, out
	case timedOut:
		return timedOut, out
	}
	if buildFailed(out) {
		return stale, "the mutated tree does not build:\n" + out
	}
	return killed, out
}

// goTest runs go test in dir; "survived" means every test passed.
func goTest(dir string, pkgs []string, run string, timeout time.Duration) (outcome, string) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout+30*time.Second)
	defer cancel()
	args := []string{"test", "-count=1", "-timeout", timeout.String()}
	if run != "" {
		args = append(args, "-run", run)
	}
	args = append(args, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = testEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	switch {
	case err == nil:
		if ran := okLine.FindAllString(out.String(), -1); len(ran) == strings.Count(out.String(), "[no tests to run]") {
			return stale, out.String() + "\n(no test matched -run " + run + ")"
		}
		return survived, out.String()
	case ctx.Err() != nil || strings.Contains(out.String(), "panic: test timed out"):
		return timedOut, out.String()
	}
	return killed, out.String()
}

// testEnv is the environment of make test-go: no smoke or browser tests.
func testEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "FOYA_SMOKE_TEST" || k == "FOYA_E2E" || k == "FOYA_ESCAPE_REPORT" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

var okLine = regexp.MustCompile(`(?m)^ok\s`)

var buildError = regexp.MustCompile(`(?m)\[(build|setup) failed\]|^# foya/`)

func buildFailed(out string) bool { return buildError.MatchString(out) }

// copyTree copies the working tree at root into dst, as it is on disk
// (uncommitted edits included), without .git, node_modules and build output.
func copyTree(root, dst string) error {
	skip := map[string]bool{".git": true, "node_modules": true, "build/bin": true, "tests/e2e/out": true, "tests/smoke/out": true}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if skip[rel] || d.Name() == "node_modules" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // .git is a file in a git worktree
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case !d.Type().IsRegular():
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return copyFile(p, to, fi.Mode().Perm())
	})
}

func copyFile(from, to string, mode fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the foya module: run from the repository")
	}
	return filepath.Dir(mod), nil
}

func checkIDs(ms []mutation) error {
	seen := map[string]bool{}
	for _, m := range ms {
		if m.ID == "" || seen[m.ID] || len(m.Pkgs) == 0 || m.Spec == "" || m.What == "" {
			return fmt.Errorf("mutation %q: want a unique ID, a spec, words and packages", m.ID)
		}
		seen[m.ID] = true
	}
	return nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 40 {
		lines = append(lines[:40], fmt.Sprintf("... (%d more lines)", len(lines)-40))
	}
	return "    " + strings.Join(lines, "\n    ")
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mutate: "+format+"\n", args...)
	os.Exit(2)
}
