//go:build !unix

package store

// readOnlyWhy says why the database can only be read; where the system
// does not tell, Open tries to write it.
func readOnlyWhy(path string) (why string, immutable bool) { return "", false }
