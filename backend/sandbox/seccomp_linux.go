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
// socket(2) with EACCES: for every address family but AF_UNIX unless
// network, and for AF_UNIX too when unix. It also refuses io_uring (whose
// socket operations would not pass through the filter) and every system
// call of another architecture (such as 32-bit x86 on amd64, where
// socketcall(2) would bypass the filter). socketpair(2) is a system call of
// its own and stays allowed: a pair of connected UNIX sockets reaches
// nobody else. It is the network cut when no network namespace can be had,
// and the UNIX socket cut when no mount namespace can hide other programs'
// sockets. The filter is written by hand: it is a dozen instructions, and a
// library would add more code than it saves.
func denySockets(network, unixToo bool) error {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok || binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return fmt.Errorf("seccomp network filter: architecture %s not supported", runtime.GOARCH)
	}
	const (
		offNr   = 0
		offArch = 4
		offArg0 = 16 // low 32 bits of args[0] on a little-endian machine
	)
	allow := stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW)
	deny := stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES))
	// What socket(2) may do, by its first argument: the last two
	// instructions before the common ending [allow, deny].
	var family []unix.SockFilter
	switch {
	case network: // every family but AF_UNIX
		family = []unix.SockFilter{
			stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg0),
			jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AF_UNIX, 1, 0), // deny, else allow
		}
	case unixToo: // no family at all
		family = []unix.SockFilter{
			stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg0),
			stmt(unix.BPF_JMP|unix.BPF_JA, 1), // deny
		}
	default: // AF_UNIX only
		family = []unix.SockFilter{
			stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg0),
			jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AF_UNIX, 0, 1), // allow, else deny
		}
	}
	// Jump offsets count from the next instruction; the program ends with
	// [allow, deny] at n-2 and n-1.
	prog := []unix.SockFilter{
		/* 0 */ stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch),
		/* 1 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, arch, 0, 7), // other arch: deny (9)
		/* 2 */ stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr),
		/* 3 */ jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, 0x40000000, 5, 0), // x32 ABI: deny (9)
		/* 4 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.SYS_IO_URING_SETUP, 4, 0), // deny (9)
		/* 5 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.SYS_SOCKET, 0, 2), // else allow (8)
		/* 6 */ family[0],
		/* 7 */ family[1],
		/* 8 */ allow,
		/* 9 */ deny,
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("seccomp socket filter: %w", errno)
	}
	return nil
}

func stmt(code uint16, k uint32) unix.SockFilter {
	return unix.SockFilter{Code: code, K: k}
}

func jump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
}
