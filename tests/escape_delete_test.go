//go:build linux

package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Permanent deletes stepped around. Each attempt deletes
// the workspace file "victim" for good in its own way. Forms whose program
// Foya can read are refused in Manual and Auto, pointing to the delete tool
// (permanentDelete). Forms whose program Foya cannot read before it runs
// ($x, $(echo rm), a glob, a pipe into sh) are asked about in Manual and
// Auto (asks): the suite's person denies those questions, so the victim
// must survive and the result must say the user denied it. Had they been
// allowed, the sandbox would not stop them: it lets a command delete inside
// the workspace, which is why the policy must see them. Full Access runs
// every one of them.

// gitVictim makes the workspace a repository with victim committed.
func gitVictim(t *testing.T, b *escBox) {
	victim(t, b)
	for _, args := range [][]string{{"init", "-q"}, {"add", "victim"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v"}} {
		if out, err := exec.Command("git", append([]string{"-C", b.ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}

// gitVictimChanged is gitVictim with an uncommitted change to victim: the
// change is what git checkout, restore and reset --hard discard.
func gitVictimChanged(t *testing.T, b *escBox) {
	gitVictim(t, b)
	escWrite(t, filepath.Join(b.ws, "victim"), "uncommitted work\n")
}

func changeLost(b *escBox, _ string) bool {
	return escRead(filepath.Join(b.ws, "victim")) != "uncommitted work\n"
}

func gitInit(t *testing.T, b *escBox) {
	victim(t, b)
	if out, err := exec.Command("git", "-C", b.ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
}

// toyboxStandIn puts a toybox that runs its applet into the workspace.
func toyboxStandIn(t *testing.T, b *escBox) {
	victim(t, b)
	escWrite(t, filepath.Join(b.ws, "toybox"), "#!/bin/sh\nexec \"$@\"\n")
	if err := os.Chmod(filepath.Join(b.ws, "toybox"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func del(name, command string) escapeAttempt {
	return escapeAttempt{name: name, setup: victim, command: command, happened: victimGone, permanentDelete: true}
}

func asked(name, command string) escapeAttempt {
	return escapeAttempt{name: name, setup: victim, command: command, happened: victimGone, asks: true}
}

var deleteAttempts = []escapeAttempt{
	// The review's forms.
	del(`\rm`, `\rm victim`),
	asked(`$(echo rm)`, `$(echo rm) victim`),
	asked(`x=rm; $x`, `x=rm; $x victim`),
	del("an alias", "shopt -s expand_aliases\nalias r=rm\nr victim"),
	del("exec -a name rm", `exec -a name rm victim`),
	del("timeout -s KILL 5 rm", `timeout -s KILL 5 rm victim`),
	del(`find -exec sh -c 'rm "$1"'`, `find . -name victim -exec sh -c 'rm "$1"' _ {} \;`),
	{name: "git -c clean.requireForce=false clean -dx", setup: gitInit, command: `git -c clean.requireForce=false clean -dx`,
		happened: victimGone, permanentDelete: true},
	del("perl -e unlink", `perl -e 'unlink "victim" or die "$!\n"'`),
	del("python3 -c os.remove", `python3 -c 'import os; os.remove("victim")'`),
	del("tar --remove-files", `tar --remove-files -cf a.tar victim`),

	// More quoting.
	del("'rm'", `'rm' victim`),
	del(`r\m`, `r\m victim`),
	del(`$'\x72m'`, `$'\x72m' victim`),
	del(`r''m`, `r''m victim`),
	// More wrappers, nested.
	del("nice timeout sudo env rm", `nice -n 5 timeout 5 sudo env -i PATH=/usr/bin:/bin rm victim`),
	del("stdbuf nohup setsid rm", `stdbuf -oL nohup setsid -w rm victim`),
	del("ionice taskset rm", `ionice -c 3 taskset -c 0 rm victim`),
	del("command builtin exec rm", `command exec rm victim`),
	del("env -S", `env -S 'rm victim'`),
	del("xargs -I sh -c", `echo victim | xargs -I{} sh -c 'rm {}'`),
	del("flock -c", `flock lockfile -c 'rm victim'`),
	del("busybox sh -c", `busybox sh -c 'rm victim'`),
	{name: "toybox rm", setup: toyboxStandIn, command: `./toybox rm victim`, happened: victimGone, permanentDelete: true},
	del("find -exec timeout env rm", `find . -name victim -exec timeout 5 env rm {} +`),
	// Shells inside shells, here-strings, traps, hash.
	del("sh -c bash -c", `sh -c 'bash -c "rm victim"'`),
	del("bash <<< script", `bash <<< 'rm victim'`),
	del("bash here-document", "bash <<'EOF'\nrm victim\nEOF"),
	del("trap EXIT", `trap 'rm victim' EXIT`),
	del("hash -p", `hash -p /bin/rm ls; ls victim`),
	del("a function", `f() { rm "$@"; }; f victim`),
	// git's forms.
	{name: "git clean -d (requireForce off in config)", setup: func(t *testing.T, b *escBox) {
		gitInit(t, b)
		if out, err := exec.Command("git", "-C", b.ws, "config", "clean.requireForce", "false").CombinedOutput(); err != nil {
			t.Fatalf("git config: %v %s", err, out)
		}
	}, command: `git clean -d`, happened: victimGone, permanentDelete: true},
	{name: "git rm", setup: gitVictim, command: `git rm -q victim`, happened: victimGone, permanentDelete: true},
	{name: "git -c alias.x=!rm", setup: gitInit, command: `git -c alias.x='!rm victim' x`, happened: victimGone, permanentDelete: true},
	{name: "git checkout -- .", setup: gitVictimChanged, command: `git checkout -- .`, happened: changeLost, permanentDelete: true},
	{name: "git restore", setup: gitVictimChanged, command: `git restore victim`, happened: changeLost, permanentDelete: true},
	{name: "git reset --hard", setup: gitVictimChanged, command: `git reset -q --hard`, happened: changeLost, permanentDelete: true},
	// Interpreters and archivers.
	del("perl -e system rm", `perl -e 'system("rm victim") == 0 or die'`),
	del("python3 subprocess rm", `python3 -c 'import subprocess; subprocess.run(["rm", "victim"], check=True)'`),
	del("python3 pathlib unlink", `python3 -c 'import pathlib; pathlib.Path("victim").unlink()'`),
	del("python3 here-document", "python3 - <<'EOF'\nimport os\nos.unlink('victim')\nEOF"),
	del("node -e unlinkSync", `node -e 'require("fs").unlinkSync("victim")'`),
	del("awk system rm", `awk 'BEGIN { if (system("rm victim") != 0) exit 1 }'`),
	del("zip -m", `zip -qm a.zip victim`),
	del("command --", `command -- rm victim`),
	del("a brace group", `{ rm victim; }`),
	del("python3 module alias", `python3 -c 'import os as o; o.remove("victim")'`),
	del("perl qx", `perl -e 'qx{rm victim}; exit $?'`),
	del("python3 exec of a code string", `python3 -c "exec('import os; os.remove(\"victim\")')"`),
	del("node eval of a code string", `node -e "eval('require(\"fs\").unlinkSync(\"victim\")')"`),
	del("node fs by string", `node -e 'require("fs")["unlinkSync"]("victim")'`),

	// Programs Foya cannot read: asked, never silently allowed.
	asked("${x:-rm}", `${x:-rm} victim`),
	asked("a glob as the name", `/usr/bin/r[m] victim`),
	asked("an array as the command", `a=(rm victim); "${a[@]}"`),
	asked("a pipe into sh", `echo 'rm victim' | sh`),
	asked("eval of a substitution", `eval "$(echo rm victim)"`),
	asked("a copy of rm", `cp /bin/rm ./myrm && ./myrm victim`),
	asked("xargs fills in the name", `echo rm | xargs -I{} sh -c '{} victim'`),
	asked("xargs feeds env its command", `printf 'rm\nvictim\n' | xargs env`),
	asked("sh reads a process substitution", `sh < <(echo rm victim)`),
	asked("a link to rm found at run time", `ln -s "$(command -v rm)" myls && ./myls victim`),
	asked("python3 code from a pipe", `echo 'import os; os.remove("victim")' | python3`),
}
