package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"foya/backend/llm"
)

// InstructionsLimit bounds how much of a project's instructions file goes
// into the system prompt; the rest is left out with a notice saying so.
const InstructionsLimit = 32 << 10

// InstructionFiles are the project instructions files, in order of
// preference: the first one present at the root of the working directory
// is the one read (CLAUDE.md only when there is no AGENTS.md).
var InstructionFiles = []string{"AGENTS.md", "CLAUDE.md"}

// loadInstructions reads the project's instructions file beneath the
// working directory, once per turn. It never reads more than the bound,
// never follows a symlink out of the working directory (a cloned project
// could point AGENTS.md at ~/.ssh/id_rsa and so send the key to the model),
// never opens what is not a regular file in a way that could block (a FIFO
// is opened non-blocking and refused on its descriptor), and says why a
// file it found was not used.
func loadInstructions(workdir string) (string, llm.Instructions) {
	root, err := os.OpenRoot(workdir)
	if err != nil {
		return "", llm.Instructions{Status: llm.InstructionsSkipped, Skipped: fmt.Sprintf("the working directory cannot be opened: %v", errText(err))}
	}
	defer root.Close()
	for i, name := range InstructionFiles {
		lfi, err := root.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		info := llm.Instructions{Status: llm.InstructionsSkipped, File: name}
		if err != nil {
			info.Skipped = fmt.Sprintf("%s cannot be read: %v", name, errText(err))
			return "", info
		}
		text, why := readInstructions(root, name, lfi, &info)
		if why != "" {
			info = llm.Instructions{Status: llm.InstructionsSkipped, File: name, Size: info.Size, Skipped: why}
			for _, later := range InstructionFiles[i+1:] {
				if _, err := root.Lstat(later); err == nil {
					info.Skipped += fmt.Sprintf("; %s is read only when there is no %s", later, name)
					break
				}
			}
			return "", info
		}
		info.Status = llm.InstructionsUsed
		return text, info
	}
	return "", llm.Instructions{Status: llm.InstructionsNone}
}

// readInstructions reads one instructions file, or says why it cannot be
// used.
func readInstructions(root *os.Root, name string, lfi fs.FileInfo, info *llm.Instructions) (text, why string) {
	fi := lfi
	if lfi.Mode()&fs.ModeSymlink != 0 {
		// os.Root follows a symlink only while it stays beneath the root,
		// at open time too, so a swap after this check cannot lead out.
		target, _ := root.Readlink(name)
		st, err := root.Stat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Sprintf("%s is a symlink to %q, which does not exist", name, target)
		case err != nil && strings.Contains(err.Error(), "escapes"):
			return "", fmt.Sprintf("%s is a symlink to %q, outside the working directory: not followed, "+
				"so that a project cannot send a file from elsewhere (a key, a password) to the model; copy the instructions into the project instead", name, target)
		case err != nil:
			return "", fmt.Sprintf("%s is a symlink to %q that cannot be followed: %v", name, target, errText(err))
		}
		fi = st
	}
	if why := notRegular(name, fi.Mode()); why != "" {
		return "", why
	}
	// O_NONBLOCK: should the file be swapped for a FIFO after the check
	// above, opening it does not wait for a writer.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if strings.Contains(err.Error(), "escapes") {
			return "", fmt.Sprintf("%s leads outside the working directory: not followed", name)
		}
		return "", fmt.Sprintf("%s cannot be read: %v", name, errText(err))
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return "", fmt.Sprintf("%s cannot be read: %v", name, errText(err))
	}
	if why := notRegular(name, ofi.Mode()); why != "" {
		return "", why
	}
	info.Size = ofi.Size()
	buf, err := io.ReadAll(io.LimitReader(f, InstructionsLimit+1))
	if err != nil {
		return "", fmt.Sprintf("%s cannot be read: %v", name, errText(err))
	}
	if bytes.IndexByte(buf, 0) >= 0 {
		return "", fmt.Sprintf("%s holds NUL bytes: it looks like a binary file, not instructions", name)
	}
	if len(buf) > InstructionsLimit {
		info.Truncated = true
		buf = buf[:InstructionsLimit]
		if i := bytes.LastIndexByte(buf, '\n'); i >= InstructionsLimit/2 {
			buf = buf[:i+1] // end on a whole line
		} else {
			buf = trimPartialRune(buf)
		}
		info.Size = max(info.Size, InstructionsLimit+1) // it grew while read
	}
	text = string(buf)
	if !utf8.ValidString(text) {
		info.InvalidUTF8 = true
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	info.Bytes = len(text)
	text = strings.TrimRight(text, "\n")
	if strings.TrimSpace(text) == "" {
		return "", fmt.Sprintf("%s is empty", name)
	}
	if info.Truncated {
		text += fmt.Sprintf("\n\n[%s is %d bytes; only its first %d bytes are included here, the limit for project instructions. Read the file for the rest.]",
			name, info.Size, info.Bytes)
	}
	return text, ""
}

// notRegular says why a file of this mode is not read as instructions, or
// "" for a regular file.
func notRegular(name string, m fs.FileMode) string {
	what := "not a regular file"
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		what = "a folder"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Sprintf("%s is %s: only a regular file is read", name, what)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// errText is an error's message without the path, which the reason names
// already.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// systemText is the system prompt of one turn: the same bytes for every
// step of the turn, so that prompt caches hold (the system prompt is the
// request's first part, like the tool section of spec R2).
func systemText(workdir, instructions, file string) string {
	s := strings.TrimSpace(systemPrompt) + "\n\nWorking directory: " + workdir
	if instructions != "" {
		s += "\n\nProject instructions from " + file + " in the working directory:\n\n<project_instructions>\n" +
			instructions + "\n</project_instructions>"
	}
	return s
}
