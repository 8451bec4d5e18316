package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Code is what an entry runs or loads from a workspace, each path
// relative to the workspace with the sha256 of its content ("absent" for
// a path that is not there yet, a digest of every file below for a
// folder). An approval covers it: any change is a change of what runs,
// and needs a new approval.
type Code map[string]string

// Absent is the digest of a path an entry names that does not exist yet:
// creating it changes what the entry runs.
const Absent = "absent"

// Bounds of a folder's digest.
const (
	maxCodeFiles = 5000
	maxCodeBytes = 64 << 20
)

// Code lists the workspace files an entry runs or loads, with their
// digests: the command when it is a file in the workspace (a path, or a
// name found on the entry's PATH there) and the folder holding it; every
// argument, and the value of every --flag=value argument, that names a
// path in the workspace (a script, a config file, a folder) and the
// folder holding a script; every path in its env values (PYTHONPATH,
// NODE_PATH and the like). Relative paths are taken from the entry's cwd,
// else the workspace. The workspace itself (and a folder above it) is not
// code: a server given "." works on the workspace, it does not run it.
// Interpreters may load more than this (modules next to a script at the
// workspace's top, node_modules): the sandbox bounds what such code can
// do, and an unsandboxed server that runs workspace code is a risk the
// user confirms on its own (kernel.MCPApprove).
func (e Entry) Code(workspace string) Code {
	if e.Transport() != Stdio || workspace == "" {
		return Code{}
	}
	ws := realPath(workspace)
	cwd := ws
	if e.Cwd != "" {
		cwd = realPath(abs(ws, e.Cwd))
	}
	code := Code{}
	// add records p (absolute) when it is inside the workspace; folder
	// says to add the folder holding it too.
	add := func(p string, folder bool) bool {
		p = realPath(p)
		rel, ok := inside(ws, p)
		if !ok || rel == "." {
			return false
		}
		if _, seen := code[rel]; !seen {
			code[rel] = digest(p)
		}
		if folder {
			if dir := filepath.Dir(p); dir != ws {
				if r, ok := inside(ws, dir); ok && r != "." {
					code[r] = digest(dir)
				}
			}
		}
		return true
	}
	switch {
	case strings.ContainsRune(e.Command, '/') || strings.ContainsRune(e.Command, filepath.Separator):
		add(abs(cwd, e.Command), true)
	default:
		if p, err := lookPath(e.Command, e.Env["PATH"]); err == nil {
			add(p, true)
		}
	}
	script := true // the first plain argument naming a file is a script: its folder counts
	for _, a := range e.Args {
		v, flag := a, false
		if strings.HasPrefix(a, "-") {
			flag = true
			_, after, ok := strings.Cut(a, "=")
			if !ok {
				continue
			}
			v = after
		}
		if v == "" {
			continue
		}
		p := abs(cwd, v)
		isFile := false
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			isFile = true
		}
		if add(p, script && isFile && !flag) && isFile && !flag {
			script = false
		}
	}
	for _, v := range e.Env {
		for _, part := range filepath.SplitList(v) {
			if part == "" || !(filepath.IsAbs(part) || strings.HasPrefix(part, ".")) {
				continue
			}
			if _, err := os.Stat(abs(cwd, part)); err == nil {
				add(abs(cwd, part), false)
			}
		}
	}
	return code
}

// Files returns the paths of c that exist, sorted.
func (c Code) Files() []string {
	out := make([]string, 0, len(c))
	for p, d := range c {
		if d != Absent {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Changed lists the paths whose digest differs between was and c, sorted.
func (c Code) Changed(was Code) []string {
	var out []string
	for p, d := range c {
		if was[p] != d {
			out = append(out, p)
		}
	}
	for p := range was {
		if _, ok := c[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Digest is one sha256 over every path and digest of c.
func (c Code) Digest() string {
	keys := make([]string, 0, len(c))
	for p := range c {
		keys = append(keys, p)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, p := range keys {
		fmt.Fprintf(h, "%s\x00%s\x00", p, c[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// digest returns the sha256 of a file's content, or of a folder's files
// (their paths, modes and contents, bounded by maxCodeFiles and
// maxCodeBytes: a folder past them is digested as far as the bounds go and
// marked so), or Absent.
func digest(p string) string {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Absent
	}
	if err != nil {
		return "unreadable: " + err.Error()
	}
	if !fi.IsDir() {
		return fileDigest(p)
	}
	h := sha256.New()
	files, size := 0, int64(0)
	errStop := errors.New("bounds")
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "%s\x00unreadable\x00", path)
			return nil
		}
		if d.IsDir() && d.Name() == ".git" && path != p {
			return filepath.SkipDir // read-only in the sandbox; git's own business
		}
		rel, _ := filepath.Rel(p, path)
		info, err := d.Info()
		if err != nil {
			return nil
		}
		fmt.Fprintf(h, "%s\x00%v\x00", rel, info.Mode())
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, _ := os.Readlink(path)
			fmt.Fprintf(h, "%s\x00", t)
		case d.Type().IsRegular():
			files++
			size += info.Size()
			if files > maxCodeFiles || size > maxCodeBytes {
				return errStop
			}
			fmt.Fprintf(h, "%s\x00", fileDigest(path))
		}
		return nil
	})
	if errors.Is(err, errStop) {
		fmt.Fprintf(h, "\x00past the bounds of %d files, %d bytes", maxCodeFiles, maxCodeBytes)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func fileDigest(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lookPath finds a command as exec would, on path when the entry sets
// PATH, else on the process's.
func lookPath(name, path string) (string, error) {
	if path == "" {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// realPath resolves links in p as far as it exists.
func realPath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if dir := filepath.Dir(p); dir != p {
		return filepath.Join(realPath(dir), filepath.Base(p))
	}
	return p
}

// inside returns p relative to ws when p is ws or below it.
func inside(ws, p string) (string, bool) {
	rel, err := filepath.Rel(ws, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

func abs(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
