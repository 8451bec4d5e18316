package sandbox

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// auditArch is the seccomp architecture of the running binary.
var auditArch = map[string]uint32{
	"amd64":   unix.AUDIT_ARCH_X86_64,
	"arm64":   unix.AUDIT_ARCH_AARCH64,
	"riscv64": unix.AUDIT_ARCH_RISCV64,
	"loong64": unix.AUDIT_ARCH_LOONGARCH64,
	"ppc64le": unix.AUDIT_ARCH_PPC64LE,
}

// denySockets installs a seccomp filter on the calling thread (which the
// caller locked for good, and from which the shell starts) that refuses
// socket(2) for every address family but AF_UNIX with EACCES, refuses
// io_uring (whose socket operations would not pass through the filter), and
// refuses every system call of another architecture (such as 32-bit x86 on
// amd64, where socketcall(2) would bypass the filter). It is the network cut
// when no network namespace can be had. The filter is written by hand: it
// is eleven instructions, and a library would add more code than it saves.
func denySockets() error {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok || binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return fmt.Errorf("seccomp network filter: architecture %s not supported", runtime.GOARCH)
	}
	const (
		offNr   = 0
		offArch = 4
		offArg0 = 16 // low 32 bits of args[0] on a little-endian machine
	)
	// Jump offsets count from the next instruction.
	prog := []unix.SockFilter{
		/* 0 */ stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch),
		/* 1 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, arch, 0, 8), // other arch: 10
		/* 2 */ stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr),
		/* 3 */ jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, 0x40000000, 6, 0), // x32 ABI: 10
		/* 4 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.SYS_SOCKET, 2, 0), // 7
		/* 5 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.SYS_IO_URING_SETUP, 4, 0), // 10
		/* 6 */ stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW),
		/* 7 */ stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg0),
		/* 8 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AF_UNIX, 0, 1), // else 10
		/* 9 */ stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW),
		/* 10 */ stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES)),
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("seccomp network filter: %w", errno)
	}
	return nil
}

func stmt(code uint16, k uint32) unix.SockFilter {
	return unix.SockFilter{Code: code, K: k}
}

func jump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
}
