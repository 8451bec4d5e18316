package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
)

var (
	probeOnce sync.Once
	probed    Capability
)

// Probe reports what can confine commands on this machine. It tries each
// mechanism for real once (a dry run of the helper, a run of bwrap) and
// caches the answer.
func Probe() Capability {
	probeOnce.Do(func() { probed = probe() })
	return probed
}

func probe() Capability {
	c := Capability{Landlock: landlockABI()}
	bwrapErr := tryBwrap(&syscall.SysProcAttr{Setsid: true})
	c.Bubblewrap = bwrapErr == nil
	if c.Landlock == 0 {
		if c.Bubblewrap {
			c.Mechanism = "bubblewrap"
			c.Reason = "no Landlock in this kernel: bubblewrap confines commands"
			return c
		}
		c.Reason = fmt.Sprintf("sandbox unavailable: no Landlock in this kernel, and bubblewrap: %v", bwrapErr)
		return c
	}
	nsErr := dryRun(modeNS)
	if nsErr == nil {
		c.NetNS = true
		c.Mechanism = "landlock+netns"
		return c
	}
	if err := dryRun(modeLandlock); err == nil {
		c.Mechanism = "landlock+seccomp"
		c.Weaker = WeakerLandlock
		c.Reason = fmt.Sprintf("user namespaces refused (%v): Landlock and seccomp confine commands; "+
			"metadata changes (chmod, touch of existing files) outside the writable folders are not blocked, "+
			"no UNIX socket can be made (socketpair works), "+
			"and new entries cannot be created in folders on the way to a read-only or hidden one", nsErr)
		return c
	} else if c.Bubblewrap {
		c.Mechanism = "bubblewrap"
		c.Reason = fmt.Sprintf("the sandbox helper failed (%v): bubblewrap confines commands", err)
		return c
	} else {
		c.Reason = fmt.Sprintf("sandbox unavailable: namespaces: %v; Landlock alone: %v; bubblewrap: %v", nsErr, err, bwrapErr)
	}
	return c
}

// dryRun starts the helper in the given mode on a scratch policy and checks
// that it confines itself.
func dryRun(mode string) error {
	dir, err := os.MkdirTemp("", "foya-sandbox-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ro := filepath.Join(dir, ".foya")
	if err := os.Mkdir(ro, 0o755); err != nil {
		return err
	}
	cmd, status, err := helperCmd(&helperSpec{
		Mode:      mode,
		Writable:  []string{dir},
		ReadOnly:  []string{ro},
		ProcLimit: procLimit,
		DryRun:    true,
	})
	if err != nil {
		return err
	}
	defer status.Close()
	err = onStarterThread(cmd.Start)
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	if err != nil {
		return err
	}
	msgs := readStatus(status)
	var first helperMsg
	var got bool
	for m := range msgs {
		if !got {
			first, got = m, true
		}
	}
	waitErr := cmd.Wait()
	switch {
	case !got:
		return fmt.Errorf("the helper exited without a word (%v); the program must call sandbox.HelperMain when its first argument is %s", waitErr, HelperArg)
	case first.Error != "":
		return fmt.Errorf("%s", first.Error)
	case !first.Ready:
		return fmt.Errorf("the helper answered out of turn")
	}
	return nil
}

// tryBwrap checks that bwrap is installed and can build a sandbox here,
// started with attr.
func tryBwrap(attr *syscall.SysProcAttr) error {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return fmt.Errorf("not installed")
	}
	cmd := exec.Command(bwrap, "--die-with-parent", "--unshare-user-try", "--unshare-pid", "--unshare-net",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true")
	cmd.SysProcAttr = attr
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}
