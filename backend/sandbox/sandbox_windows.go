package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Probe reports that nothing confines commands on Windows.
func Probe() Capability {
	return Capability{Reason: "sandbox unavailable: Windows cannot restrict a process's file system and network " +
		"access without administrator setup; commands run only unrestricted, in a Job Object that ends their whole tree"}
}

func start(ctx context.Context, sp *spec) (*Process, error) {
	if sp.Policy.Restricted {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, Probe().Reason)
	}
	cmd := exec.Command(sp.shell)
	var scriptPath string
	if len(sp.Script) > bigScript {
		// Too long for a command line: the shell reads it from a file.
		f, err := os.CreateTemp("", "foya-script-*.sh")
		if err != nil {
			return nil, fmt.Errorf("script file: %w", err)
		}
		scriptPath = f.Name()
		_, werr := f.WriteString(sp.Script)
		if err := errors.Join(werr, f.Close()); err != nil {
			os.Remove(scriptPath)
			return nil, fmt.Errorf("script file: %w", err)
		}
		cmd.Args = []string{sp.shell, scriptPath}
	} else {
		cmd.Args = []string{sp.shell, "-c", sp.Script}
	}
	cmd.Env = sp.Env
	cmd.Dir = sp.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	job, err := newKillingJob()
	if err != nil {
		return nil, err
	}
	p := newProcess(sp, "none")
	cmd.Stdout = p.out
	cmd.Stderr = p.out
	cmd.WaitDelay = pipeGrace
	started := time.Now()
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		if scriptPath != "" {
			os.Remove(scriptPath)
		}
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p.pid = cmd.Process.Pid
	t := &jobTree{pid: p.pid, job: job, script: scriptPath}
	// What the shell starts before this call escapes the job: a known race
	// of Job Objects without suspended creation.
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.SYNCHRONIZE, false, uint32(p.pid))
	if err == nil {
		t.proc = h
		err = windows.AssignProcessToJobObject(job, h)
	}
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.release()
		return nil, fmt.Errorf("job object: %w", err)
	}
	go p.supervise(ctx, cmd, t, sp, started)
	return p, nil
}

// newKillingJob creates a Job Object that kills its processes when closed.
func newKillingJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("job object: %w", err)
	}
	return job, nil
}

// jobTree is a command in a Job Object that ends with it.
type jobTree struct {
	pid    int
	job    windows.Handle
	proc   windows.Handle
	script string
}

func (j *jobTree) waitExited() {
	windows.WaitForSingleObject(j.proc, windows.INFINITE)
}

// signal asks the tree to stop with CTRL_BREAK (Windows has no SIGTERM),
// or terminates the whole job.
func (j *jobTree) signal(term bool) error {
	if term {
		_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(j.pid))
		return nil
	}
	if err := windows.TerminateJobObject(j.job, 1); err != nil {
		return fmt.Errorf("terminate job: %w", err)
	}
	return nil
}

func (j *jobTree) killRest() { _ = windows.TerminateJobObject(j.job, 1) }

func (j *jobTree) status(cmd *exec.Cmd) (int, string) {
	if cmd.ProcessState == nil {
		return -1, ""
	}
	return cmd.ProcessState.ExitCode(), ""
}

func (j *jobTree) release() {
	windows.CloseHandle(j.job)
	if j.proc != 0 {
		windows.CloseHandle(j.proc)
	}
	if j.script != "" {
		os.Remove(j.script)
	}
}
