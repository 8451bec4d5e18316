package shell

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Bounds of the walk that finds the protected folders of a workspace;
// variables so that tests can make them small.
var (
	maxProtectDirs = 20000
	maxProtectTime = 2 * time.Second
)

// protectedNames are the folders git and agents run or read code from
// later, outside any sandbox: kept read-only at any depth, so that no
// hook or config planted by a sandboxed command runs unsandboxed later.
var protectedNames = []string{".git", ".agents", ".foya"}

// protection is what keeps a workspace's protected folders read-only.
type protection struct {
	// paths are existing .git folders and files, the git folders a .git
	// file points to (with their common folder), hook folders named by
	// core.hooksPath, and .agents and .foya folders below the root.
	paths []string
	// gits are the .git entries themselves.
	gits []string
	// incomplete says the walk stopped at its bounds: folders deeper than
	// it went may hold a .git that stays writable.
	incomplete bool
}

// protect walks the workspace for its protected folders, bounded by
// maxProtectDirs folders and maxProtectTime. It does not enter the
// protected folders themselves (they are read-only whole) nor follow
// symbolic links (a link's target is outside or walked on its own).
func protect(ws string) protection {
	var p protection
	deadline := time.Now().Add(maxProtectTime)
	queue := []string{ws}
	for n := 0; len(queue) > 0; n++ {
		if n >= maxProtectDirs || time.Now().After(deadline) {
			p.incomplete = true
			break
		}
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if slices.Contains(protectedNames, e.Name()) {
				if e.Name() == ".git" {
					p.gits = append(p.gits, path)
					p.paths = append(p.paths, gitPaths(path, e.Type().IsRegular())...)
				} else if e.IsDir() || e.Type()&os.ModeSymlink != 0 {
					p.paths = append(p.paths, path)
				}
				continue
			}
			if e.IsDir() {
				queue = append(queue, path)
			}
		}
	}
	return p
}

// gitPaths is what keeps one repository's git folder read-only: the .git
// entry itself; for a .git file (a worktree or submodule) the folder its
// "gitdir:" line names and that folder's common folder; and the hook folder
// its config names with core.hooksPath.
func gitPaths(dotGit string, file bool) []string {
	paths := []string{dotGit}
	gitDir := dotGit
	if file {
		b, err := os.ReadFile(dotGit)
		if err != nil {
			return paths
		}
		line, _, _ := strings.Cut(string(b), "\n")
		target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return paths
		}
		gitDir = abs(filepath.Dir(dotGit), strings.TrimSpace(target))
		paths = append(paths, gitDir)
		if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			paths = append(paths, abs(gitDir, strings.TrimSpace(string(c))))
		}
	}
	for _, cfg := range []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")} {
		if hooks := hooksPath(cfg); hooks != "" {
			paths = append(paths, abs(filepath.Dir(dotGit), hooks))
		}
	}
	return paths
}

// hooksPath reads core.hooksPath from a git config file (best effort: no
// includes, no quoting beyond plain double quotes).
func hooksPath(config string) string {
	f, err := os.Open(config)
	if err != nil {
		return ""
	}
	defer f.Close()
	section, value := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(strings.Fields(strings.Trim(line, "[]"))[0], `"`))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && section == "core" && strings.EqualFold(strings.TrimSpace(k), "hookspath") {
			value = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	if strings.HasPrefix(value, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			value = filepath.Join(home, value[2:])
		}
	}
	return value
}

// quarantine renames aside every .git that appeared below ws while a
// sandboxed command ran (before is the walk made when it started): a
// repository made inside the sandbox (git init, a .git file naming a folder
// of the command's choice) may hold hooks or config the command planted,
// which git would run later outside any sandbox. Each becomes
// .git.sandboxed (or .git.sandboxed-N), renamed beneath ws with os.Root so
// that a link swapped in meanwhile cannot lead it outside. It returns one
// sentence per renamed entry, for the model.
func quarantine(ws string, before protection) []string {
	return quarantineFor(ws, before, "the command", "To make a repository, run the command with sandbox: false and a reason")
}

// quarantineFor is quarantine with the words for who made the repository
// and what to do instead.
func quarantineFor(ws string, before protection, who, instead string) []string {
	after := protect(ws)
	var notes []string
	var root *os.Root
	for _, g := range after.gits {
		if slices.Contains(before.gits, g) {
			continue
		}
		if root == nil {
			var err error
			if root, err = os.OpenRoot(ws); err != nil {
				return append(notes, fmt.Sprintf("%s made %s, which could not be renamed aside (%v): do not run git there before checking its config and hooks", who, g, err))
			}
			defer root.Close()
		}
		rel, err := filepath.Rel(ws, g)
		if err != nil {
			continue
		}
		aside := rel + ".sandboxed"
		for n := 2; ; n++ {
			if _, err := root.Lstat(aside); err != nil {
				break
			}
			aside = fmt.Sprintf("%s.sandboxed-%d", rel, n)
		}
		if err := root.Rename(rel, aside); err != nil {
			notes = append(notes, fmt.Sprintf("%s made %s, which could not be renamed aside (%v): do not run git there before checking its config and hooks", who, rel, err))
			continue
		}
		notes = append(notes, fmt.Sprintf("%s made a git repository (%s); Foya renamed it to %s, because hooks or config made inside the sandbox "+
			"would run later outside it. %s", who, rel, aside, instead))
	}
	return notes
}

func abs(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// CredentialStores are the usual places of secrets below home that
// sandboxed commands may not read (what a command reads can reach the
// model and the database): SSH, cloud and
// cluster credentials, GnuPG, the GitHub CLI's token, netrc, Docker's
// registry logins and Docker Desktop's socket, git's stored credentials,
// and browser profiles (cookies, saved passwords).
func CredentialStores(home string) []string {
	rel := []string{
		".ssh", ".aws", ".azure", ".gnupg", ".kube", ".netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc",
		".docker/config.json", ".docker/desktop", ".config/gh", ".config/git/credentials", ".config/gcloud",
		".password-store", ".local/share/keyrings",
		".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge",
		".config/vivaldi", ".config/opera", ".thunderbird", "snap/firefox", "snap/chromium",
	}
	out := make([]string, len(rel))
	for i, r := range rel {
		out[i] = filepath.Join(home, filepath.FromSlash(r))
	}
	return out
}
