package trash

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// dateLayout is the DeletionDate format of the trash specification
// (YYYY-MM-DDThh:mm:ss, local time, no zone).
const dateLayout = "2006-01-02T15:04:05"

// infoSuffix ends every file in $trash/info.
const infoSuffix = ".trashinfo"

// encodePath percent-encodes the bytes of p as RFC 2396 allows for a URI
// path. It keeps only letters, digits, "-", "_", ".", "~" and "/" literal:
// a subset of the unreserved characters, so the result is valid RFC 2396
// and every reader (GLib, KDE, trash-cli) decodes it the same way.
func encodePath(p string) string {
	var b strings.Builder
	b.Grow(len(p))
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~', c == '/':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// decodePath reverses percent-encoding. A "%" not followed by two hex digits
// is kept literally, as lenient readers do, rather than losing the entry.
func decodePath(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b = append(b, byte(v))
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// formatInfo returns the contents of a .trashinfo file.
func formatInfo(encodedPath string, deleted time.Time) []byte {
	return []byte("[Trash Info]\nPath=" + encodedPath + "\nDeletionDate=" +
		deleted.Local().Format(dateLayout) + "\n")
}

// parsedInfo is what a .trashinfo file says.
type parsedInfo struct {
	path    string    // decoded, as written (absolute or relative)
	deleted time.Time // zero when missing or malformed
}

// parseInfo reads a .trashinfo file. It requires the [Trash Info] group and
// a Path key; within the group the first Path and DeletionDate win and
// every other line is ignored, as the specification requires.
func parseInfo(data []byte) (parsedInfo, error) {
	var (
		out              parsedInfo
		inGroup, seenHdr bool
		havePath, haveDt bool
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			inGroup = line == "[Trash Info]"
			seenHdr = seenHdr || inGroup
			continue
		}
		if !inGroup {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch {
		case key == "Path" && !havePath:
			out.path, havePath = decodePath(val), true
		case key == "DeletionDate" && !haveDt:
			out.deleted, haveDt = parseDate(val), true
		}
	}
	if err := sc.Err(); err != nil {
		return parsedInfo{}, err
	}
	if !seenHdr {
		return parsedInfo{}, fmt.Errorf("no [Trash Info] group")
	}
	if !havePath || out.path == "" {
		return parsedInfo{}, fmt.Errorf("no Path key")
	}
	return out, nil
}

// parseDate accepts the specification's layout and the compact form used in
// its own example (20040831T22:32:08); anything else gives the zero time.
func parseDate(s string) time.Time {
	for _, layout := range []string{dateLayout, "20060102T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t
		}
	}
	return time.Time{}
}

// maxNameBytes keeps NAME.trashinfo within the 255-byte name limit of
// common filesystems.
const maxNameBytes = 255 - len(infoSuffix)

// candidateName returns the n-th name to try in $trash/files for an item
// called base (n starts at 1). The first try is base itself; then
// "stem.N.ext" ("report.2.txt", "Makefile.2", ".bashrc.2"); past 100 tries a
// random tag replaces N, so a trash holding thousands of entries of one name
// still finds a free one quickly. Long names are cut, on a UTF-8 boundary,
// so that NAME.trashinfo fits in 255 bytes.
func candidateName(base string, n int, random func() string) string {
	stem, ext := splitExt(base)
	var tag string
	switch {
	case n <= 1:
		return truncateUTF8(base, maxNameBytes)
	case n <= 100:
		tag = "." + strconv.Itoa(n)
	default:
		tag = "." + random()
	}
	suffix := tag + ext
	if len(suffix) > maxNameBytes/2 { // absurdly long extension: drop it
		suffix = tag
		stem = base
	}
	return truncateUTF8(stem, maxNameBytes-len(suffix)) + suffix
}

// splitExt splits "a.tar.gz" into "a.tar", ".gz". A leading dot does not
// start an extension (".bashrc" has none).
func splitExt(base string) (stem, ext string) {
	i := strings.LastIndexByte(base, '.')
	if i <= 0 {
		return base, ""
	}
	return base[:i], base[i:]
}

// truncateUTF8 cuts s to at most max bytes without splitting a UTF-8
// sequence (bytes that are not UTF-8 are cut anywhere).
func truncateUTF8(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) && max-cut < utf8.UTFMax {
		cut--
	}
	if cut == 0 {
		cut = max
	}
	return s[:cut]
}

// randomTag returns eight random hex digits for candidateName.
func randomTag() string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return strconv.FormatInt(time.Now().UnixNano(), 16)
	}
	return hex.EncodeToString(b[:])
}
