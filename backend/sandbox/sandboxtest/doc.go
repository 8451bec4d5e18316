// Package sandboxtest holds what escape tests of the sandbox share: the
// test's own loopback end points, to see whether a confined command reached
// them, a host name the machine resolves, to try DNS, and folders outside
// the ones the sandbox hides ([Dir]).
//
// It imports the standard library and golang.org/x/sys only.
package sandboxtest
