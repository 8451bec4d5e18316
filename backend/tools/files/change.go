package files

import (
	"bytes"

	"foya/backend/llm"
	"foya/backend/tools"
)

// makeChange builds the File Change of path going from before to after
// (spec F1): existence, modes, digests, contents for the blobs, and the
// unified diff. Folders have no contents and no diff.
func makeChange(op, path, workdir string, before, after state) tools.FileChange {
	fc := llm.FileChange{
		Path: path, Op: op,
		ExistedBefore: before.Exists, ExistsAfter: after.Exists,
		IsDir:      before.IsDir || after.IsDir,
		ModeBefore: before.Mode, ModeAfter: after.Mode,
		SHABefore: before.SHA, SHAAfter: after.SHA,
	}
	if !fc.IsDir && (before.Data != nil || !before.Exists) && (after.Data != nil || !after.Exists) {
		oldName, newName := DiffNames(path, workdir)
		d := Unified(oldName, newName, before.Data, after.Data, before.Exists, after.Exists)
		fc.Diff, fc.Added, fc.Removed, fc.Binary = d.Text, d.Added, d.Removed, d.Binary
	}
	return tools.FileChange{FileChange: fc, Before: before.Data, After: after.Data}
}

// sameFile reports whether two states of one path show the same file: the
// same existence, type, mode and content.
func sameFile(a, b state) bool {
	if a.Exists != b.Exists || a.IsDir != b.IsDir || a.Link != b.Link || a.Mode != b.Mode {
		return false
	}
	if a.SHA != "" || b.SHA != "" {
		return a.SHA == b.SHA
	}
	return a.Size == b.Size && a.ModTime.Equal(b.ModTime)
}

// lineCount counts lines as editors do: a last line without a newline
// counts.
func lineCount(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
