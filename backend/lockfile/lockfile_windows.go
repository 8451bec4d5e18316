//go:build windows

package lockfile

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

const (
	noFollow        = 0 // a lock file is opened as itself; Windows links need privileges to make
	removeWhileOpen = false
)

func lock(f *os.File, shared, wait bool) error {
	var flags uint32
	if !shared {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return ErrLocked
	}
	return err
}

func fileID(f *os.File) string {
	var fi windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &fi); err != nil {
		return ""
	}
	return fmt.Sprintf("%x-%x%08x", fi.VolumeSerialNumber, fi.FileIndexHigh, fi.FileIndexLow)
}
