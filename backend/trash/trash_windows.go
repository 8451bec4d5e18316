package trash

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The Recycle Bin keeps each deleted item as $R<id><ext> beside a $I<id><ext>
// record holding its original path, size and deletion time, in
// <drive>\$Recycle.Bin\<user SID>. InfoPath is that $I record.

var (
	shell32                = windows.NewLazySystemDLL("shell32.dll")
	procSHFileOperationW   = shell32.NewProc("SHFileOperationW")
	procSHQueryRecycleBinW = shell32.NewProc("SHQueryRecycleBinW")
)

const (
	foDelete           = 0x0003
	fofSilent          = 0x0004
	fofNoConfirmation  = 0x0010
	fofAllowUndo       = 0x0040
	fofNoErrorUI       = 0x0400
	fofWantNukeWarning = 0x4000
)

// Put sends path to the Recycle Bin with SHFileOperationW and FOF_ALLOWUNDO.
// A drive without a Recycle Bin (network shares, some removable drives) is
// refused with ErrUnsupported before anything happens, and
// FOF_WANTNUKEWARNING makes Windows ask the user rather than delete for
// good if the bin cannot take the item after all. When the bin's records
// cannot be read, the returned Item has an empty TrashedPath: the item is in
// the Recycle Bin, but Restore cannot find it.
func (t *Trash) Put(path string) (Item, error) {
	if t.err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", path, t.err)
	}
	src, err := sourcePath(path)
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", path, err)
	}
	if _, err := os.Lstat(src); err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", path, err)
	}
	if inRecycleBin(src) {
		return Item{}, fmt.Errorf("trash %s: refusing: the path is the Recycle Bin or inside it", path)
	}
	root := filepath.VolumeName(src) + `\`
	if err := queryRecycleBin(root); err != nil {
		return Item{}, fmt.Errorf("trash %s: %w: drive %s has no Recycle Bin (%v); nothing was moved or deleted", path, ErrUnsupported, root, err)
	}
	deleted := t.now().Local().Truncate(time.Second)
	if err := shDelete(src); err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", path, err)
	}
	it := Item{OriginalPath: src, DeletedAt: deleted}
	if found, ok := t.findRecycled(root, src); ok {
		it.TrashedPath, it.InfoPath = found.TrashedPath, found.InfoPath
	}
	return it, nil
}

// is64bit: the shell structures below are declared with their 64-bit
// layout; 32-bit Windows packs them differently, so 32-bit builds refuse.
const is64bit = unsafe.Sizeof(uintptr(0)) == 8

// shFileOpStruct is SHFILEOPSTRUCTW as laid out on 64-bit Windows.
type shFileOpStruct struct {
	hwnd                  uintptr
	wFunc                 uint32
	pFrom                 *uint16
	pTo                   *uint16
	fFlags                uint16
	fAnyOperationsAborted int32
	hNameMappings         uintptr
	lpszProgressTitle     *uint16
}

func shDelete(src string) error {
	if !is64bit {
		return fmt.Errorf("%w: the Recycle Bin is reached only from 64-bit builds", ErrUnsupported)
	}
	from, err := windows.UTF16FromString(src)
	if err != nil {
		return err
	}
	from = append(from, 0) // pFrom is a double-NUL-terminated list
	op := shFileOpStruct{
		wFunc:  foDelete,
		pFrom:  &from[0],
		fFlags: fofAllowUndo | fofNoConfirmation | fofNoErrorUI | fofSilent | fofWantNukeWarning,
	}
	r, _, _ := procSHFileOperationW.Call(uintptr(unsafe.Pointer(&op)))
	if r != 0 {
		return fmt.Errorf("move to the Recycle Bin: SHFileOperationW error %#x", r)
	}
	if op.fAnyOperationsAborted != 0 {
		return errors.New("move to the Recycle Bin was cancelled")
	}
	if _, err := os.Lstat(src); err == nil {
		return errors.New("move to the Recycle Bin left the item in place")
	}
	return nil
}

// shQueryRBInfo is SHQUERYRBINFO as laid out on 64-bit Windows.
type shQueryRBInfo struct {
	cbSize      uint32
	i64Size     int64
	i64NumItems int64
}

func queryRecycleBin(root string) error {
	if !is64bit {
		return errors.New("32-bit build")
	}
	p, err := windows.UTF16PtrFromString(root)
	if err != nil {
		return err
	}
	info := shQueryRBInfo{}
	info.cbSize = uint32(unsafe.Sizeof(info))
	r, _, _ := procSHQueryRecycleBinW.Call(uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&info)))
	if r != 0 {
		return fmt.Errorf("SHQueryRecycleBinW error %#x", r)
	}
	return nil
}

func inRecycleBin(p string) bool {
	for _, part := range strings.Split(p, `\`) {
		if strings.EqualFold(part, "$Recycle.Bin") {
			return true
		}
	}
	return false
}

// userSID returns the current user's SID, which names the user's folder in
// each drive's Recycle Bin.
func userSID() (string, error) {
	tok, err := windows.OpenCurrentProcessToken()
	if err != nil {
		return "", err
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return "", err
	}
	return u.User.Sid.String(), nil
}

// binDir returns the user's Recycle Bin folder on the drive with root.
func binDir(root string) (string, error) {
	sid, err := userSID()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "$Recycle.Bin", sid), nil
}

// findRecycled finds the newest record of src in the drive's bin.
func (t *Trash) findRecycled(root, src string) (Item, bool) {
	dir, err := binDir(root)
	if err != nil {
		return Item{}, false
	}
	items, err := listBin(dir)
	if err != nil {
		return Item{}, false
	}
	var best Item
	for _, it := range items {
		if strings.EqualFold(it.OriginalPath, src) && (best.InfoPath == "" || it.DeletedAt.After(best.DeletedAt)) {
			best = it
		}
	}
	return best, best.InfoPath != ""
}

// listBin reads the $I records of one Recycle Bin folder.
func listBin(dir string) ([]Item, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var items []Item
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "$I") || e.IsDir() {
			continue
		}
		info := filepath.Join(dir, name)
		orig, deleted, err := readRecord(info)
		if err != nil {
			continue
		}
		trashed := filepath.Join(dir, "$R"+name[2:])
		if _, err := os.Lstat(trashed); err != nil {
			continue
		}
		items = append(items, Item{OriginalPath: orig, TrashedPath: trashed, InfoPath: info, DeletedAt: deleted})
	}
	return items, nil
}

// readRecord parses a $I record: version 1 (Vista to 8.1, a fixed 260
// character path) or version 2 (Windows 10 and later, a counted path).
func readRecord(p string) (string, time.Time, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", time.Time{}, err
	}
	if len(data) < 24 {
		return "", time.Time{}, fmt.Errorf("%s: record too short", p)
	}
	version := binary.LittleEndian.Uint64(data[0:8])
	ft := windows.Filetime{
		LowDateTime:  binary.LittleEndian.Uint32(data[16:20]),
		HighDateTime: binary.LittleEndian.Uint32(data[20:24]),
	}
	deleted := time.Unix(0, ft.Nanoseconds()).Local().Truncate(time.Second)
	var raw []byte
	switch version {
	case 1:
		raw = data[24:]
	case 2:
		if len(data) < 28 {
			return "", time.Time{}, fmt.Errorf("%s: record too short", p)
		}
		n := int(binary.LittleEndian.Uint32(data[24:28]))
		if n < 0 || 28+2*n > len(data) {
			return "", time.Time{}, fmt.Errorf("%s: bad path length", p)
		}
		raw = data[28 : 28+2*n]
	default:
		return "", time.Time{}, fmt.Errorf("%s: unknown record version %d", p, version)
	}
	u := make([]uint16, len(raw)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(raw[2*i:])
	}
	if i := slices.Index(u, 0); i >= 0 {
		u = u[:i]
	}
	orig := string(utf16.Decode(u))
	if !filepath.IsAbs(orig) {
		return "", time.Time{}, fmt.Errorf("%s: original path %q is not absolute", p, orig)
	}
	return filepath.Clean(orig), deleted, nil
}

// Restore moves it back to its original path with MoveFileExW, which never
// replaces an existing file and never copies across drives, then deletes
// its $I record. It refuses with ErrExists when something is at the
// original path and with ErrNotFound when the item is gone from the bin or
// its record now describes another deletion.
func (t *Trash) Restore(it Item) error {
	if t.err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, t.err)
	}
	if !filepath.IsAbs(it.OriginalPath) || filepath.Clean(it.OriginalPath) != it.OriginalPath {
		return fmt.Errorf("restore %s: not a clean absolute path", it.OriginalPath)
	}
	if it.TrashedPath == "" {
		return fmt.Errorf("restore %s: %w: the Recycle Bin record was not found when it was deleted; restore it from the Recycle Bin", it.OriginalPath, ErrNotFound)
	}
	dir, name := filepath.Split(it.TrashedPath)
	if !inRecycleBin(it.TrashedPath) || !strings.HasPrefix(name, "$R") || it.InfoPath != filepath.Join(dir, "$I"+name[2:]) {
		return fmt.Errorf("restore %s: %s is not an item of the Recycle Bin", it.OriginalPath, it.TrashedPath)
	}
	if _, err := os.Lstat(it.TrashedPath); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore %s: %w: %s is gone", it.OriginalPath, ErrNotFound, it.TrashedPath)
	} else if err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	orig, _, err := readRecord(it.InfoPath)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore %s: %w: its record %s is missing", it.OriginalPath, ErrNotFound, it.InfoPath)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	if !strings.EqualFold(orig, it.OriginalPath) {
		return fmt.Errorf("restore %s: %w: %s now holds another deletion (of %s)", it.OriginalPath, ErrNotFound, it.TrashedPath, orig)
	}
	if _, err := os.Lstat(it.OriginalPath); err == nil {
		return fmt.Errorf("restore %s: %w; the item stays in the Recycle Bin", it.OriginalPath, ErrExists)
	}
	if err := os.MkdirAll(filepath.Dir(it.OriginalPath), 0o755); err != nil {
		return fmt.Errorf("restore %s: recreate its folder: %w", it.OriginalPath, err)
	}
	from, err := windows.UTF16PtrFromString(it.TrashedPath)
	if err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	to, err := windows.UTF16PtrFromString(it.OriginalPath)
	if err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	if err := windows.MoveFileEx(from, to, 0); err != nil {
		switch {
		case errors.Is(err, windows.ERROR_ALREADY_EXISTS), errors.Is(err, windows.ERROR_FILE_EXISTS):
			return fmt.Errorf("restore %s: %w; the item stays in the Recycle Bin", it.OriginalPath, ErrExists)
		case errors.Is(err, windows.ERROR_NOT_SAME_DEVICE):
			return fmt.Errorf("restore %s: %w: the original folder is on another drive now and copying is not allowed", it.OriginalPath, ErrUnsupported)
		}
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	if err := os.Remove(it.InfoPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restored %s, but its Recycle Bin record remains: %w", it.OriginalPath, err)
	}
	return nil
}

// PutAt is Put for the entry name of the open folder dir, which the user
// knows as shown. The shell's Recycle Bin takes paths only, so on Windows
// the move goes by the path shown: a folder on the way swapped for a link
// after the caller checked it is not caught here (the weaker guarantee
// docs/security.md states).
func (t *Trash) PutAt(dir *os.File, name, shown string) (Item, error) {
	if err := checkAt(name, shown); err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, err)
	}
	return t.Put(shown)
}

// RestoreAt is Restore into the open folder dir under name, the last
// element of it.OriginalPath; as with PutAt, Windows moves by the path.
func (t *Trash) RestoreAt(it Item, dir *os.File, name string) error {
	if err := checkAt(name, it.OriginalPath); err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	return t.Restore(it)
}

// List returns the items of the user's Recycle Bin on every drive, newest
// first. Drives whose bin cannot be read are skipped.
func (t *Trash) List() ([]Item, error) {
	if t.err != nil {
		return nil, fmt.Errorf("list trash: %w", t.err)
	}
	mask, err := windows.GetLogicalDrives()
	if err != nil {
		return nil, fmt.Errorf("list trash: %w", err)
	}
	sid, err := userSID()
	if err != nil {
		return nil, fmt.Errorf("list trash: %w", err)
	}
	var items []Item
	for i := range 26 {
		if mask&(1<<i) == 0 {
			continue
		}
		root := string(rune('A'+i)) + `:\`
		more, err := listBin(filepath.Join(root, "$Recycle.Bin", sid))
		if err == nil {
			items = append(items, more...)
		}
	}
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := b.DeletedAt.Compare(a.DeletedAt); c != 0 {
			return c
		}
		return strings.Compare(a.TrashedPath, b.TrashedPath)
	})
	return items, nil
}
