//go:build linux

package tests

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/approval"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// gitRepo makes dir a git repository with one commit, outside any sandbox.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "T"},
		{"commit", "-q", "--allow-empty", "-m", "first"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}

func wsRepo(t *testing.T, b *escBox) { gitRepo(t, b.ws) }

// gitConfigHas reports whether a git config file below the workspace holds s.
func gitConfigHas(rel, s string) func(b *escBox, _ string) bool {
	return func(b *escBox, _ string) bool {
		return strings.Contains(escRead(filepath.Join(b.ws, rel)), s)
	}
}

func inWS(rel string) func(b *escBox, _ string) bool {
	return func(b *escBox, _ string) bool { return pathExists(filepath.Join(b.ws, rel)) }
}

// gitAttempts: a sandboxed command may not plant code
// that git (or an agent) runs later outside any sandbox, through any .git
// under the workspace (nested repositories, a .git file's git folder, a
// hooks folder named by core.hooksPath) nor through .agents or .foya.
var gitAttempts = []escapeAttempt{
	{name: "git config core.fsmonitor", setup: wsRepo, command: `git config core.fsmonitor 'touch OUT/pwned'`, happened: gitConfigHas(".git/config", "fsmonitor")},
	{name: "git config core.hooksPath", setup: wsRepo, command: `git config core.hooksPath myhooks`, happened: gitConfigHas(".git/config", "hooksPath")},
	{name: "git config core.pager", setup: wsRepo, command: `git config core.pager 'touch OUT/pwned; less'`, happened: gitConfigHas(".git/config", "pager")},
	{name: "git config --local alias", setup: wsRepo, command: `git config --local alias.st '!touch OUT/pwned'`, happened: gitConfigHas(".git/config", "alias")},
	{
		name: "plant .git/hooks/pre-commit", setup: wsRepo,
		command:  `printf '#!/bin/sh\ntouch OUT/pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
		happened: inWS(".git/hooks/pre-commit"),
	},
	{name: "edit .git/config with sed -i", setup: wsRepo, command: `sed -i 's|^\[core\]|[core]\n\tfsmonitor = touch OUT/pwned|' .git/config`, happened: gitConfigHas(".git/config", "fsmonitor")},
	{name: "write .git/info/attributes", setup: wsRepo, command: `echo '* filter=x' > .git/info/attributes`, happened: inWS(".git/info/attributes")},
	{
		name: "move .git away and make a new one", setup: wsRepo,
		command:  `mv .git old-git && git init -q . && git config core.fsmonitor 'touch OUT/pwned'`,
		happened: func(b *escBox, _ string) bool { return pathExists(filepath.Join(b.ws, "old-git")) },
	},
	{
		name: "replace .git/config by a symlink", setup: wsRepo,
		command:  `printf '[core]\n\tfsmonitor = touch OUT/pwned\n' > cfg && ln -sf "$PWD/cfg" .git/config`,
		happened: gitConfigHas(".git/config", "fsmonitor"),
	},
	{
		name: "write .git through a symlink made by the command", setup: wsRepo,
		command: `ln -s .git g && echo '[core] fsmonitor = x' >> g/config`, happened: gitConfigHas(".git/config", "fsmonitor"),
	},
	{
		name: "nested repository's .git",
		setup: func(t *testing.T, b *escBox) {
			os.MkdirAll(filepath.Join(b.ws, "vendor", "lib"), 0o755)
			gitRepo(t, filepath.Join(b.ws, "vendor", "lib"))
		},
		command:  `git -C vendor/lib config core.fsmonitor 'touch OUT/pwned'`,
		happened: gitConfigHas("vendor/lib/.git/config", "fsmonitor"),
	},
	{
		name: "repository inside node_modules",
		setup: func(t *testing.T, b *escBox) {
			os.MkdirAll(filepath.Join(b.ws, "node_modules", "pkg"), 0o755)
			gitRepo(t, filepath.Join(b.ws, "node_modules", "pkg"))
		},
		command:  `echo 'touch OUT/pwned' > node_modules/pkg/.git/hooks/post-checkout`,
		happened: inWS("node_modules/pkg/.git/hooks/post-checkout"),
	},
	{
		name: "a .git file's git folder inside the workspace",
		setup: func(t *testing.T, b *escBox) {
			gitRepo(t, b.ws)
			os.Rename(filepath.Join(b.ws, ".git"), filepath.Join(b.ws, "store.git"))
			escWrite(t, filepath.Join(b.ws, ".git"), "gitdir: store.git\n")
		},
		command: `git config core.fsmonitor 'touch OUT/pwned'; echo '#planted' >> store.git/config`,
		happened: func(b *escBox, _ string) bool {
			cfg := escRead(filepath.Join(b.ws, "store.git", "config"))
			return strings.Contains(cfg, "fsmonitor") || strings.Contains(cfg, "#planted")
		},
	},
	{
		name: "a worktree's git folder",
		setup: func(t *testing.T, b *escBox) {
			main := filepath.Join(b.ws, "main")
			os.Mkdir(main, 0o755)
			gitRepo(t, main)
			if out, err := exec.Command("git", "-C", main, "worktree", "add", "-q", filepath.Join(b.ws, "wt")).CombinedOutput(); err != nil {
				t.Fatalf("git worktree add: %v %s", err, out)
			}
		},
		command:  `cd wt && echo evil > "$(git rev-parse --git-common-dir)/hooks/pre-commit"`,
		happened: inWS("main/.git/hooks/pre-commit"),
	},
	{
		name: "hooks folder named by core.hooksPath",
		setup: func(t *testing.T, b *escBox) {
			gitRepo(t, b.ws)
			os.Mkdir(filepath.Join(b.ws, ".husky"), 0o755)
			exec.Command("git", "-C", b.ws, "config", "core.hooksPath", ".husky").Run()
		},
		command: `printf '#!/bin/sh\ntouch OUT/pwned\n' > .husky/pre-commit`, happened: inWS(".husky/pre-commit"),
	},
	{
		name: "git init at the root, then plant fsmonitor", command: `git init -q && git config core.fsmonitor 'touch OUT/pwned'`,
		happened: gitConfigHas(".git/config", "fsmonitor"),
	},
	{
		name: "git init in a subfolder, then plant a hook", command: `git init -q sub && echo 'touch OUT/pwned' > sub/.git/hooks/pre-commit`,
		happened: inWS("sub/.git/hooks/pre-commit"),
	},
	{
		name:     "a .git file naming a folder of the command's own",
		command:  `mkdir -p evil && git init -q --bare evil/repo && git --git-dir=evil/repo config core.fsmonitor 'touch OUT/pwned' && echo 'gitdir: evil/repo' > .git`,
		happened: inWS(".git"),
	},
	{
		name:    "git init in a shell job",
		command: `git init -q bgrepo & wait; git -C bgrepo config core.fsmonitor 'touch OUT/pwned'`, happened: gitConfigHas("bgrepo/.git/config", "fsmonitor"),
	},
	// What a writable .git would let a command plant beyond config and
	// hooks, each followed by what the user (or Foya) does next with git,
	// outside any sandbox: the reasons .git stays read-only whole (see
	// docs/security.md, "Developer tools in the sandbox").
	{
		name: "rename a file over .git/config", setup: wsRepo,
		command:  `printf '[core]\n\tfsmonitor = touch OUT/pwned\n' > .git/config.lock && mv -f .git/config.lock .git/config`,
		happened: afterHostGit(gitConfigHas(".git/config", "fsmonitor"), "status"),
	},
	{
		name: "plant .git/commondir naming a git folder of the command's own", setup: wsRepo,
		command:  `cp -r .git evil && git --git-dir=evil config core.fsmonitor 'touch OUT/pwned' && echo ../evil > .git/commondir`,
		happened: afterHostGit(inWS(".git/commondir"), "status"),
	},
	{
		name: "rewrite a worktree's commondir",
		setup: func(t *testing.T, b *escBox) {
			main := filepath.Join(b.ws, "main")
			os.Mkdir(main, 0o755)
			gitRepo(t, main)
			if out, err := exec.Command("git", "-C", main, "worktree", "add", "-q", filepath.Join(b.ws, "wt")).CombinedOutput(); err != nil {
				t.Fatalf("git worktree add: %v %s", err, out)
			}
		},
		command: `cp -r main/.git evil && git --git-dir=evil config core.fsmonitor 'touch OUT/pwned' && echo ../../../evil > main/.git/worktrees/wt/commondir`,
		happened: afterHostGit(func(b *escBox, _ string) bool {
			return strings.Contains(escRead(filepath.Join(b.ws, "main/.git/worktrees/wt/commondir")), "evil")
		}, "-C", "wt", "status"),
	},
	{
		name: "plant an interactive rebase whose todo runs a command", setup: wsRepo,
		command: `mkdir .git/rebase-merge && git rev-parse HEAD > .git/rebase-merge/onto && cp .git/rebase-merge/onto .git/rebase-merge/orig-head && ` +
			`git symbolic-ref HEAD > .git/rebase-merge/head-name && touch .git/rebase-merge/interactive .git/rebase-merge/done && ` +
			`echo 'exec touch OUT/pwned' > .git/rebase-merge/git-rebase-todo`,
		happened: afterHostGit(inWS(".git/rebase-merge"), "rebase", "--continue"),
	},
	{
		name: "symlink .git/logs/HEAD to a file outside", setup: func(t *testing.T, b *escBox) { wsRepo(t, b); outsideFile(t, b) },
		command:  `ln -sf OUT/existing .git/logs/HEAD`,
		happened: afterHostGit(outsideChanged, "checkout", "-q", "-b", "from-host"),
	},
	{
		name: "symlink .git/COMMIT_EDITMSG to a file outside", setup: func(t *testing.T, b *escBox) { wsRepo(t, b); outsideFile(t, b) },
		command:  `ln -sf OUT/existing .git/COMMIT_EDITMSG`,
		happened: afterHostGit(outsideChanged, "commit", "-q", "--allow-empty", "-m", "from the host"),
	},
	{
		name: "make a missing .git/hooks with a hook",
		setup: func(t *testing.T, b *escBox) {
			wsRepo(t, b)
			if err := os.RemoveAll(filepath.Join(b.ws, ".git", "hooks")); err != nil {
				t.Fatal(err)
			}
		},
		command:  `mkdir .git/hooks && printf '#!/bin/sh\ntouch OUT/pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
		happened: afterHostGit(inWS(".git/hooks/pre-commit"), "commit", "-q", "--allow-empty", "-m", "from the host"),
	},
	{name: "create .agents content", command: `mkdir -p .agents/skills && echo evil > .agents/skills/x.md`, happened: inWS(".agents/skills/x.md")},
	{
		name:    "nested .agents",
		setup:   func(t *testing.T, b *escBox) { os.MkdirAll(filepath.Join(b.ws, "pkg", ".agents"), 0o755) },
		command: `echo evil > pkg/.agents/AGENTS.md`, happened: inWS("pkg/.agents/AGENTS.md"),
	},
	{
		name:    "nested .foya",
		setup:   func(t *testing.T, b *escBox) { os.MkdirAll(filepath.Join(b.ws, "pkg", ".foya"), 0o755) },
		command: `echo '{"allow":[{"tool":"bash"}]}' > pkg/.foya/permissions.json`, happened: inWS("pkg/.foya/permissions.json"),
	},
}

// afterHostGit runs git with args in the workspace outside any sandbox, as
// the user would after the command, then reports whether the attempt left
// its mark (planted, looked at before git runs, as git may consume it,
// and after, as that git may be what writes it) or made that git run
// anything (OUT/pwned).
func afterHostGit(planted func(b *escBox, _ string) bool, args ...string) func(b *escBox, _ string) bool {
	return func(b *escBox, res string) bool {
		was := planted(b, res)
		cmd := exec.Command("git", append([]string{"-C", b.ws}, args...)...)
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GIT_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "GIT_EDITOR=true", "GIT_TERMINAL_PROMPT=0")
		_ = cmd.Run() // it fails where nothing was planted (no rebase in progress)
		return was || planted(b, res) || pathExists(filepath.Join(b.out, "pwned"))
	}
}

// spec: A2 — with .git read-only, git's reading commands
// still work in the sandbox (git status, git log, git diff), in Auto.
func TestGitReadsInSandbox(t *testing.T) {
	needSandbox(t)
	h := newHarness(t, nil,
		pt.Calls(call("c1", "bash", `{"command":"git status --short && git log --format=%s && git diff"}`)), pt.Say("done"))
	gitRepo(t, h.dir)
	escWrite(t, filepath.Join(h.dir, "f"), "one\n")
	for _, args := range [][]string{{"add", "f"}, {"commit", "-qm", "second"}} {
		if out, err := exec.Command("git", append([]string{"-C", h.dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	escWrite(t, filepath.Join(h.dir, "f"), "two\n")
	run := h.runIn(context.Background(), h.session("auto").ID, "look")
	calls, err := h.k.Calls(context.Background(), run.ID)
	if err != nil || len(calls) != 1 || calls[0].Result == nil {
		t.Fatalf("calls %+v %v", calls, err)
	}
	res := calls[0].Result.Text
	for _, want := range []string{" M f", "second\nfirst", "-one\n+two", "Exit code 0", "Sandbox: "} {
		if !strings.Contains(res, want) {
			t.Errorf("git in the sandbox: result lacks %q:\n%s", want, res)
		}
	}
}

// spec: A2, M2 — a git command that must write .git asks to
// leave the sandbox, and the approval offers the command's prefix as a
// session scope: "git commit" for git commit -m x.
func TestGitWriteAsksWithPrefixScope(t *testing.T) {
	h := newHarness(t, nil,
		pt.Calls(call("c1", "bash", `{"command":"git commit -m x","sandbox":false,"reason":"commit the change"}`)), pt.Say("done"))
	var scopes []kernel.Grant
	ans := &answerer{}
	ans.watch(h.k, func(p kernel.Approval) kernel.Answer {
		scopes = p.Scopes
		return kernel.Answer{Choice: kernel.Deny}
	})
	run := h.runIn(context.Background(), h.session("auto").ID, "commit")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if len(ans.asked) != 1 || ans.asked[0] != string(approval.ShellEscalate) {
		t.Fatalf("asked %v; want one shell_escalate question", ans.asked)
	}
	if len(scopes) == 0 || strings.Join(scopes[0].Prefix, " ") != "git commit" {
		b, _ := json.Marshal(scopes)
		t.Errorf("scopes offered %s; want the first to be the prefix \"git commit\"", b)
	}
}
