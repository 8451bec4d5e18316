//go:build unix && !darwin && !linux

package trash

// renameNoReplace renames src to dst and fails with an error matching
// fs.ErrExist when dst exists.
func renameNoReplace(src, dst string) error { return renameIfAbsent(src, dst) }

// renameAtNoReplace is renameNoReplace for names relative to folder
// descriptors.
func renameAtNoReplace(fromfd int, from string, tofd int, to string) error {
	return renameAtIfAbsent(fromfd, from, tofd, to)
}
