//go:build unix

package workspace

import "syscall"

// noFollow makes opening the last element fail when it is a link: what the
// walk saw as a file must still be one.
const noFollow = syscall.O_NOFOLLOW
