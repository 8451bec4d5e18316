package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// HelperStamp names the build a foya binary and its small helper
// (cmd/foya-sandbox) came from: make build links the same value into both
// (a digest of the sandbox's sources and the toolchain, see the Makefile).
// The runner starts the small helper only when it answers with this very
// stamp, and otherwise starts its own binary as the helper, as a binary
// built without a stamp (go build .) always does: a helper of another build
// could confine otherwise than this one's code says.
var HelperStamp string

// StampArg is the first argument that makes the small helper print its
// stamp and exit.
const StampArg = "__sandbox-stamp"

// SmallHelperName is the small helper's file name, looked for beside the
// running binary and in ../lib/foya from its folder (a package's layout).
const SmallHelperName = "foya-sandbox"

// SmallHelperMain is the small helper's main: HelperMain with HelperArg as
// its first argument, the stamp with StampArg.
func SmallHelperMain(args []string) int {
	switch {
	case len(args) > 0 && args[0] == HelperArg:
		return HelperMain(args[1:])
	case len(args) > 0 && args[0] == StampArg:
		fmt.Println(HelperStamp)
		return 0
	}
	fmt.Fprintf(os.Stderr, "%s is Foya's sandbox helper: foya starts it, not people\n", SmallHelperName)
	return 2
}

// helperExe is the program started as the helper: the small helper of this
// build when there is one, else the running binary. A variable so that
// tests can start another.
var helperExe = func() (string, error) {
	if p := smallHelper(); p != "" {
		return p, nil
	}
	return os.Executable()
}

// smallHelper finds the small helper of this build once: "" without a
// stamp, without the file, or when the file is not of this build (its
// stamp differs) or could be replaced by others (writable by its group or
// everyone, or owned by another user than this one or root).
var smallHelper = sync.OnceValue(func() string {
	if HelperStamp == "" {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	dir := filepath.Dir(exe)
	for _, p := range []string{filepath.Join(dir, SmallHelperName), filepath.Join(dir, "..", "lib", "foya", SmallHelperName)} {
		if helperOfThisBuild(p) {
			return p
		}
	}
	return ""
})

// helperOfThisBuild reports whether p is a small helper that only its
// owner (this user or root) can replace and that answers with this
// build's stamp.
func helperOfThisBuild(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 || fi.Mode().Perm()&0o100 == 0 {
		return false
	}
	if uid, ok := fileOwner(fi); !ok || uid != 0 && uid != os.Getuid() {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p, StampArg)
	cmd.Env = []string{}
	out, err := cmd.Output()
	return err == nil && strings.TrimSpace(string(out)) == HelperStamp
}
