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

// spec: D2, D3 — permanent deletes behind quoting,
// wrappers at any depth, find -exec with a shell, git's config-driven
// forms, archivers and interpreters' inline code are all found.
func TestPermanentDeleteSteppedAround(t *testing.T) {
	deletes := []string{
		// Quoting and escapes: the word is still rm.
		`\rm victim`, `r\m victim`, `'rm' victim`, `"rm" victim`, `r''m victim`, `"r"m victim`, `$'rm' victim`,
		`$'\x72m' victim`, `$'\162m' victim`, `\/bin/rm victim`, `~/../../bin/rm victim`,
		// Wrappers, with their options, at any depth.
		`exec -a name rm victim`, `exec -cl rm victim`, `timeout -s KILL 5 rm victim`, `timeout --signal=KILL -k 1 5s rm victim`,
		`timeout --kill-after 2 5 rm victim`, `nice -n 10 rm victim`, `nice -5 rm victim`, `nice --adjustment=3 rm victim`,
		`ionice -c 3 rm victim`, `ionice -c2 -n7 rm victim`, `nohup rm victim`, `stdbuf -oL rm victim`, `stdbuf -i 0 -o L rm victim`,
		`setsid -f rm victim`, `chrt -b 0 rm victim`, `chrt 0 rm victim`, `taskset 0x1 rm victim`, `taskset -c 0 rm victim`,
		`time rm victim`, `/usr/bin/time -f %e rm victim`, `command -p rm victim`, `builtin command rm victim`,
		`sudo -u root -E rm victim`, `sudo --user=root rm victim`, `sudo FOO=1 rm victim`, `doas -u root rm victim`,
		`env -i PATH=/bin rm victim`, `env -u HOME -C . rm victim`, `env --chdir=. -- rm victim`, `env -S 'rm victim'`,
		`env --split-string="rm -f" victim`, `xargs -0 -n1 -P2 rm < list`, `xargs -I{} rm {}`, `xargs -a list rm`,
		`xargs --max-args=1 rm`, `flock /tmp/l rm victim`, `flock -w 5 /tmp/l -c 'rm victim'`, `flock -c 'rm victim' /tmp/l`,
		`watch -n 1 rm victim`, `watch -x rm victim`, `chroot / rm victim`, `busybox rm victim`, `toybox rm victim`,
		`busybox sh -c 'rm victim'`, `parallel rm ::: victim`, `parallel -j2 'rm {}' ::: victim`, `parallel ::: 'rm victim'`,
		`strace -o /dev/null rm victim`, `unshare -r rm victim`, `su -c 'rm victim'`, `su - root -c 'rm victim'`,
		`runuser -u nobody -- rm victim`, `script -qc 'rm victim' /dev/null`, `nice timeout 5 sudo env rm victim`,
		`sudo timeout 5 nice -n 1 xargs rm`, `command exec nohup rm victim`, `unbuffer rm victim`,
		`setpriv --reuid=0 rm victim`, `setpriv --regid 0 --clear-groups rm victim`, `numactl -m 0 rm victim`,
		`numactl --membind 0 -- rm victim`, `ltrace -o x rm victim`, `sg root "rm victim"`, `sg - root -c "rm victim"`, `sg root rm victim`,
		`mv victim /dev/null`, `mv -f victim /dev/null`,
		// find -exec with a command, a wrapper or a shell.
		`find . -exec sh -c 'rm "$1"' _ {} \;`, `find . -name v -execdir bash -c 'rm "$0"' {} +`, `find . -ok env rm {} \;`,
		`find . -type f -okdir /bin/rm {} \;`, `find . -exec timeout 5 rm {} +`, `find . -name x -print -delete`,
		// Shells, nested; eval; aliases; traps; here-documents.
		`sh -c 'sh -c "rm victim"'`, `bash -ec 'rm victim'`, `bash -o pipefail -c 'rm victim'`, `bash -lc "cd x; rm victim"`,
		`dash -c 'rm victim'`, `zsh -c 'rm victim'`, `eval rm victim`, `eval "eval 'rm victim'"`,
		`shopt -s expand_aliases; alias r=rm; r victim`, `alias r='rm -f'`, `alias x=ls r='\rm'`, `trap 'rm victim' EXIT`,
		"bash <<'EOF'\nrm victim\nEOF", `bash <<< 'rm victim'`, `sh -s <<< 'rm victim'`, "source /dev/stdin <<'EOF'\nrm victim\nEOF",
		`hash -p /bin/rm ls; ls victim`, `f() { rm "$@"; }; f victim`, `BASH_ALIASES[r]=rm`,
		// git: config-driven forms and subcommands that delete or discard.
		`git -c clean.requireForce=false clean -dx`, `git clean -d`, `git clean -X`, `git clean -i`, `git -C repo clean -xdf`,
		`git rm file`, `git rm -r --force dir`, `git worktree remove ../wt`, `git worktree remove --force ../wt`,
		`git reset --hard`, `git reset --hard HEAD~1`, `git checkout -- .`, `git checkout -- file.go`, `git checkout -f main`,
		`git checkout .`, `git restore file.go`, `git restore --worktree --staged file.go`, `git restore -W -S .`,
		`git switch --discard-changes main`, `git stash drop`, `git stash clear`, `git -c alias.x='!rm victim' x`,
		`git -c alias.c=clean c -f`, `git -c core.fsmonitor='rm victim' status`, `git -c core.pager='rm victim' log`,
		`git -c diff.external='rm victim' diff`, `git submodule foreach 'rm victim'`, `git submodule foreach --recursive rm victim`,
		`git bisect run rm victim`, `git rebase -x 'rm victim' main`, `git rebase --exec='rm victim' main`,
		`git filter-branch --tree-filter 'rm victim' HEAD`, `GIT_PAGER='rm victim' git log`,
		`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm victim' git status`,
		`export GIT_EDITOR='rm victim'`, `env GIT_SSH_COMMAND='rm victim' git fetch`,
		// Archivers and mv.
		`tar --remove-files -cf a.tar victim`, `tar -cf a.tar --remove-files victim`, `tar -czf a.tgz --remove victim`,
		`tar --rem -cf a.tar victim`, `tar -xf a.tar --recursive-unlink`, `rsync -a --remove-source-files victim /tmp/`,
		`rsync -a --delete src/ dst/`, `rsync -a --delete-after src/ dst/`, `rsync --del src/ dst/`, `zip -m a.zip victim`,
		`zip -rm a.zip dir`, `zip --move a.zip victim`, `7z a -sdel a.7z victim`, `mv victim /dev/null`, `srm victim`, `wipe victim`,
		// Interpreters' inline code.
		`perl -e 'unlink "victim"'`, `perl -e'unlink q(victim)'`, `perl -ne 'unlink $_'`, `perl -MFile::Path -e 'rmtree("d")'`,
		`perl -MFile::Path=remove_tree -e 'remove_tree("d")'`, `perl -e 'system("rm victim")'`, "perl -e '`rm victim`'",
		`python3 -c 'import os; os.remove("victim")'`, `python3 -c "import os; os.unlink('victim')"`,
		`python -c 'import shutil; shutil.rmtree("d")'`, `python3 -c 'import pathlib; pathlib.Path("victim").unlink()'`,
		`python3 -c 'from os import remove; remove("victim")'`, `python3 -c 'import os; os.rmdir("d")'`,
		`python3 -c 'import subprocess; subprocess.run(["rm", "victim"])'`, `python3 -c 'import os; os.system("rm victim")'`,
		`python3.12 -c 'import os; os.removedirs("a/b")'`, "python3 - <<'EOF'\nimport os\nos.remove('victim')\nEOF",
		`python3 <<< 'import os; os.remove("victim")'`, `node -e 'require("fs").unlinkSync("victim")'`,
		`node -e 'require("fs").rmSync("d", {recursive: true})'`, `node --eval="fs.rmSync('victim')"`,
		`node -e 'require("child_process").execSync("rm victim")'`, `ruby -e 'File.delete("victim")'`,
		`ruby -rfileutils -e 'FileUtils.rm_rf("d")'`, `php -r 'unlink("victim");'`, `lua -e 'os.remove("victim")'`,
		`awk 'BEGIN { system("rm victim") }'`, `awk -F: 'BEGIN { print "victim" | "xargs rm" }'`, `deno eval 'Deno.removeSync("x"); Deno.unlinkSync("y")'`,
		`"$VENV/bin/python" -c 'import os; os.remove("victim")'`, `sudo python3 -c 'import os; os.remove("victim")'`,
		`find . -exec python3 -c 'import os, sys; os.remove(sys.argv[1])' {} \;`,
		// Forms found while hardening: option terminators, bundles,
		// aliases of modules, strings, package runners, trash emptying.
		`command -- rm victim`, `exec -- rm victim`, `nohup -- rm victim`, `env -- rm victim`, `sudo -- rm victim`,
		`timeout -- 5 rm victim`, `{ rm victim; }`, `while rm victim; do break; done`, `coproc rm victim`, `! rm victim`,
		`time -p rm victim`, `rm victim &`, `xargs -r rm`, `xargs --no-run-if-empty rm`, `builtin eval 'rm victim'`,
		`command eval 'rm victim'`, `perl -we 'unlink "victim"'`, `python3 -Ic 'import os; os.remove("victim")'`,
		`python3 -B -c 'import os; os.remove("victim")'`, `python3 -c 'import os as o; o.remove("victim")'`,
		`python3 -c 'import shutil as s; s.rmtree("d")'`, `python3 -c '__import__("os").remove("victim")'`,
		`python3 -c 'import os; getattr(os, "remove")("victim")'`, `node -e 'require("fs")["unlinkSync"]("victim")'`,
		`perl -e 'qx{rm victim}'`, `ruby -e '%x(rm victim)'`, `ruby -e 'require "pathname"; Pathname.new("v").delete'`,
		`deno eval 'await Deno.remove("victim")'`, `npx rimraf dist`, `npx -y rimraf dist`, `npx -c 'rm victim'`,
		`poetry run rm victim`, `uv run --with x python -c 'import os; os.remove("v")'`, `npm exec -- rimraf dist`,
		`bundle exec rm victim`, `direnv exec . rm victim`, `fakeroot rm victim`, `faketime 2020-01-01 rm victim`,
		`trash-empty`, `trash-rm victim`, `gio remove victim`, `gio trash --empty`, `cmake -E rm -f victim`,
		`cmake -E remove_directory d`, `awk 'BEGIN { print "rm victim" | "sh" }'`, `bash -c -- 'rm victim'`,
		`python3 -c "exec('import os; os.remove(\"victim\")')"`, `node -e "eval('require(\"fs\").unlinkSync(\"v\")')"`,
		`vim -es -c '!rm victim' -c q`, `vi +'call delete("victim")' +q`, `emacs --batch --eval '(delete-file "victim")'`,
		`emacs --batch --eval '(shell-command "rm victim")'`, `sqlite3 :memory: '.shell rm victim'`,
	}
	for _, src := range deletes {
		c, err := ParseCommand(src)
		if err != nil {
			t.Errorf("ParseCommand(%q): %v", src, err)
			continue
		}
		if len(c.PermanentDelete()) == 0 {
			t.Errorf("PermanentDelete(%q) found nothing (opaque: %v)", src, c.Opaque())
		}
	}
}

// spec: D2 — a command whose program Foya cannot read
// before it runs is opaque (Auto asks), never silently allowed.
func TestOpaqueCommands(t *testing.T) {
	opaque := []string{
		`$(echo rm) victim`, "`echo rm` victim", `x=rm; $x victim`, `${x} victim`, `"$x" victim`, `${x:-rm} victim`,
		`/bin/r? victim`, `/bin/r* victim`, `/bin/{rm,} victim`, `{rm,x} victim`, `/bin/r[m] victim`, `$(which rm) victim`,
		`sudo $CMD victim`, `timeout 5 $x victim`, `env A=1 "$@"`, `xargs $x`, `find . -exec $x {} \;`, `sh -c "$S"`,
		`bash -c "$(curl -s x)"`, `eval "$x"`, `eval $(cat f)`, `echo rm victim | sh`, `curl -s x | bash`, `cat f | bash -s`,
		`bash <(curl x)`, `source <(echo rm victim)`, `. /dev/stdin`, `python3 -c "$CODE"`, `echo 'import os' | python3`,
		`curl x | perl`, `git $SUB -f`, `git -c "$KV" status`, `git -c include.path=../x status`, `git -c core.hooksPath=h commit`,
		`git --config-env=alias.x=X x`, `GIT_CONFIG_PARAMETERS="'alias.x=!rm v'" git x`, `cp /bin/rm ./x`, `ln -s /usr/bin/rm myls`,
		`parallel < cmds`, `alias r=$x`, `find /bin -name rm -exec {} victim \;`, `echo rm | xargs -I{} {} victim`,
		`echo rm | xargs -I% % victim`, `printf 'rm victim' | xargs env`, `printf 'rm\0victim' | xargs -0 sudo`,
		`sh < <(echo rm victim)`, `parallel {} ::: rm`, `"$PYTHON" -m pytest`, `ln -s "$(command -v rm)" ls`,
		"cp `which rm` x", `vim -c 'call system("x")'`, `a=(rm); "${a[@]}" victim`, `sh -c 'sh -c "sh -c \"sh -c \\\"sh -c \\\\\\\"sh -c \\\\\\\\\\\\\\\"sh -c ls\\\\\\\\\\\\\\\"\\\\\\\"\\\"\""'`,
	}
	for _, src := range opaque {
		c, err := ParseCommand(src)
		if err != nil {
			t.Errorf("ParseCommand(%q): %v", src, err)
			continue
		}
		if len(c.Opaque()) == 0 && len(c.PermanentDelete()) == 0 {
			t.Errorf("Opaque(%q) found nothing", src)
		}
		d := Decide(Auto, Action{Kind: Shell, Tool: "bash", Command: src}, nil)
		if d.Verdict == Allow {
			t.Errorf("Decide(auto, %q) = allow (%s); want ask", src, d.Reason)
		}
	}
	// Harmless commands stay allowed in Auto: no question for them.
	clear := []string{
		"ls -la", "go test ./...", "[ -e f ] && echo y", "while [ ! -e ready ]; do sleep 0.01; done", "[ a = b ]", "test -d x",
		`"$VENV/bin/python" -m pytest`, `$HOME/bin/tool --flag`, "echo $HOME", `rm_helper=1 make`,
		"python3 script.py", "python3 -m pip list", "python3 --version", "node --version", "perl -v", "node app.js", "awk '{print $1}' f",
		"python3 -c 'print(1)'", `perl -ne 'print if /x/' f`, "git status", "git log --oneline", "git diff", "git commit -m 'rm old code'",
		"git checkout -b feature", "git switch main", "git restore --staged f", "git stash", "git stash pop", "git branch -D old",
		"git -c user.name=x commit -m y", "tar -czf a.tgz dir", "zip -r a.zip dir", "mv a b", "cp a b", "ln -s a b",
		"command -v rm", "sudo -l", "xargs echo", "find . -name '*.go'", "find . -exec grep -l x {} +", "timeout 5 go test",
		"bash script.sh", "sh ./configure", "sh -c 'go vet ./...'", "echo x | tee f", "watch -n 1 ls", "cat <<EOF\nrm x\nEOF",
		"grep -r unlink .", "echo 'import os; os.remove(x)'", "trash-put x", "npm run clean", "make clean",
		"npx prettier --write .", "poetry run pytest", "uv run python -m pytest", "bundle exec rake", "gio trash x",
		"cmake -E copy a b", "xargs -I{} cp {} /tmp", "node -e 'const m = new Map(); m.delete(1)'",
		"python3 -c 'l = [1]; l.remove(1)'", "sh < script.sh", "xargs -0 grep -l x", `cp "$f" backup/`, "vim -c 'set nu' f", "vim -es -c 'wq!' f",
		"emacs --batch --eval '(message \"hi\")'", "sqlite3 db.sqlite '.tables'", "python3 -c 'print(\"hello world\")'",
	}
	for _, src := range clear {
		c, err := ParseCommand(src)
		if err != nil {
			t.Errorf("ParseCommand(%q): %v", src, err)
			continue
		}
		if got := c.PermanentDelete(); len(got) != 0 {
			t.Errorf("PermanentDelete(%q) = %v; want nothing", src, got)
		}
		if got := c.Opaque(); len(got) != 0 {
			t.Errorf("Opaque(%q) = %v; want nothing", src, got)
		}
	}
}

// ParseCommand never panics, and a command it reads either parses or says
// why not: the guard must not be the weak point.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{`\rm x`, `$(echo rm) x`, `find . -exec sh -c 'rm "$1"' _ {} \;`, "bash <<'EOF'\nrm x\nEOF",
		`git -c alias.x='!rm v' x`, `python3 -c 'import os; os.remove("v")'`, `xargs -I{} {} v`, `env -S 'rm v'`, `a=(rm); "${a[@]}"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ParseCommand(src)
		if err == nil {
			c.PermanentDelete()
			c.Opaque()
			c.Prefix()
			Decide(Auto, Action{Kind: Shell, Tool: "bash", Command: src}, nil)
		}
	})
}
