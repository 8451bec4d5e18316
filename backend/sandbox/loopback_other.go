//go:build !linux

package sandbox

import (
	"errors"
	"os"
)

func makeLoopback() (user, net *os.File, err error) {
	return nil, nil, errors.New("a shared loopback needs Linux namespaces")
}

func dupFile(f *os.File) (*os.File, error) {
	return nil, errors.New("a shared loopback needs Linux namespaces")
}
