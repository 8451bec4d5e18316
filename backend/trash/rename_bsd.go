//go:build unix && !darwin && !linux

package trash

// renameNoReplace renames src to dst and fails with an error matching
// fs.ErrExist when dst exists.
func renameNoReplace(src, dst string) error { return renameIfAbsent(src, dst) }
