//go:build !linux

package store

// lockHolder names the process holding a write lock on the database where
// the system tells; here it does not.
func lockHolder(path string) string { return "" }
