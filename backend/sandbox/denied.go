package sandbox

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"foya/backend/fspath"
)

// DenialKind says what kind of thing the sandbox refused.
type DenialKind string

// The kinds of Denial.
const (
	// DeniedWrite is a write outside Policy.Writable, or into a ReadOnly
	// path (Denial.Protected).
	DeniedWrite DenialKind = "write"
	// DeniedNetwork is a network connection or name lookup while the
	// network was cut.
	DeniedNetwork DenialKind = "network"
	// DeniedHidden is a read of a Policy.Hidden path (a credential store,
	// Foya's data).
	DeniedHidden DenialKind = "hidden"
	// DeniedSocket is a connection to a pathname UNIX socket outside
	// Writable (another program's: the Docker daemon, an SSH agent).
	DeniedSocket DenialKind = "socket"
	// DeniedOther is a refusal the output reports without naming what
	// was refused ("Read-only file system" alone).
	DeniedOther DenialKind = "other"
)

// Denial is one thing a restricted command's output reports the sandbox
// refused. It is read from the output (the messages programs print for
// EACCES, EPERM, EROFS and network failures), so it is best effort: a
// program that says nothing, or words its error its own way, leaves no
// Denial; one is kept only where the user could have done the same thing
// without the sandbox (a write to a folder the user may write, a path that
// exists) or, for the network, while the network was cut.
type Denial struct {
	Kind DenialKind
	// Path is the refused path, absolute and with the links of its
	// existing part resolved (write, hidden, socket).
	Path string
	// Host is the refused end point, "host:port" or "host" as the message
	// names it (network); empty when the message names none.
	Host string
	// Protected marks a write into a path that stays read-only whatever
	// the user allows (.git, .foya, .agents, Foya's own files).
	Protected bool
	// crowded marks a write refused because its folder holds a read-only
	// path on the way (Landlock alone: those folders take no new entries).
	crowded bool
	// masked is the socket folder (/tmp, /run) the sandbox covers with an
	// empty one, in which Path lies: the path looks missing there.
	masked string
	// Text says what was refused and why in one sentence, the home folder
	// written "~": "write to ~/.npm/_cacache refused: outside the
	// workspace".
	Text string
}

// maxDenials bounds the Denials of one result: a command that tries a
// thousand paths gets the first few named.
const maxDenials = 8

// Messages of refused writes, as programs print strerror(3).
// EXDEV and EBUSY are how a link or rename across the sandbox's mounts
// fails; like the others they count only for a path outside Writable.
var fsDenials = []string{
	"Permission denied", "Operation not permitted", "Read-only file system",
	"Invalid cross-device link", "Device or resource busy",
}

// Messages of reads of a hidden path: a hidden folder looks empty, a
// hidden file is empty and read-only.
var hiddenDenials = append([]string{"No such file or directory", "Not a directory"}, fsDenials...)

// Messages of refused connections to a UNIX socket: the socket folders are
// covered by empty file systems, other sockets by empty files.
var socketDenials = append([]string{"No such file or directory", "Connection refused", "Not a directory",
	"Cannot connect", "cannot connect", "connect to", "Is the docker daemon running", "ENOENT", "EACCES", "ECONNREFUSED", "EPERM"}, fsDenials...)

// Messages of network failures; while the network is cut they are the
// sandbox's doing (the loopback of a network namespace has only the
// command's own servers, and without namespaces seccomp refuses sockets
// with EACCES).
var netDenials = []string{
	"Network is unreachable", "Connection refused", "No route to host",
	"Temporary failure in name resolution", "Could not resolve host", "Name or service not known",
	"Address family not supported", "Cannot assign requested address", "getaddrinfo",
	"socket: Permission denied", "Couldn't connect to server", "Failed to connect to",
	"network is unreachable", "connection refused", "no such host", "EAI_AGAIN", "ENOTFOUND",
	"ECONNREFUSED", "ENETUNREACH", "Could not resolve hostname", "unable to resolve host",
	"Failed to establish a new connection",
}

// denials reads the output for what the sandbox refused: writes outside
// Writable (or into ReadOnly) that the user could otherwise do, reads of
// Hidden paths that exist, connections to other programs' sockets, and
// network failures while the network is cut.
// carved is true when the ReadOnly folders were carved out of Landlock rules
// (no namespaces), so that the folders on the way to them take no new
// entries.
func denials(out []byte, sp *spec, carved bool) []Denial {
	var ds []Denial
	add := func(d Denial) {
		if len(ds) >= maxDenials {
			return
		}
		for _, o := range ds {
			if o.Kind == d.Kind && o.Path == d.Path && o.Host == d.Host {
				return
			}
			// One network denial without a host says it all once one
			// with a host (or another without) is there.
			if d.Kind == DeniedNetwork && o.Kind == DeniedNetwork && d.Host == "" {
				return
			}
		}
		if d.Kind == DeniedNetwork && d.Host != "" {
			ds = slices.DeleteFunc(ds, func(o Denial) bool { return o.Kind == DeniedNetwork && o.Host == "" })
		}
		d.Text = describe(d)
		ds = append(ds, d)
	}
	for line := range bytes.Lines(out) {
		s := string(line)
		paths := pathsIn(s, sp.Dir)
		if socket, ok := refusedSocket(s, paths, sp); ok {
			add(Denial{Kind: DeniedSocket, Path: socket})
			continue
		}
		if hidden, ok := refusedHidden(s, paths, sp); ok {
			add(Denial{Kind: DeniedHidden, Path: hidden})
			continue
		}
		if masked, p, ok := refusedMasked(s, paths, sp); ok && !carved {
			add(Denial{Kind: DeniedWrite, Path: p, masked: masked})
			continue
		}
		// Without namespaces, bash's /dev/tcp says "Permission denied" on
		// the end point it could not reach.
		devNet := (strings.Contains(s, "/dev/tcp/") || strings.Contains(s, "/dev/udp/")) && containsAny(s, fsDenials)
		if !sp.Policy.Network && (containsAny(s, netDenials) || devNet) {
			add(Denial{Kind: DeniedNetwork, Host: hostIn(s)})
			continue
		}
		if !containsAny(s, fsDenials) {
			continue
		}
		if len(paths) == 0 && strings.Contains(s, "Read-only file system") {
			add(Denial{Kind: DeniedOther})
			continue
		}
		for _, p := range paths {
			p = fspath.ResolveExisting(p)
			readOnly := fspath.WithinAny(sp.readOnly, p)
			crowded := !readOnly && carved && onTheWay(p, sp.readOnly)
			if (!fspath.WithinAny(sp.writable, p) || readOnly || crowded) && writableUnconfined(p) {
				add(Denial{Kind: DeniedWrite, Path: p, Protected: readOnly || crowded, crowded: crowded})
				break
			}
		}
	}
	return ds
}

// refusedHidden returns the hidden path a line reports an error on, if any
// and if it exists on the host (a hidden folder looks empty inside, so its
// files are "missing" there).
func refusedHidden(s string, paths []string, sp *spec) (string, bool) {
	if len(sp.hidden) == 0 || !containsAny(s, hiddenDenials) {
		return "", false
	}
	for _, p := range paths {
		p = fspath.ResolveExisting(p)
		for _, h := range sp.hidden {
			if (p == h.Path || h.Dir && fspath.WithinAny([]string{h.Path}, p)) && onHost(p) {
				return p, true
			}
		}
	}
	return "", false
}

// refusedMasked returns the path a line reports missing that lies in a
// socket folder the sandbox covers with an empty one (/tmp, /run), outside
// Writable, where the user could write without the sandbox, with that
// folder. (Reads and writes there look alike: the path is missing. So a
// path is taken only when it, or its folder below the covered one, exists
// on the host: "cat /tmp/nothing" is no refusal.) Only the mechanisms with
// a mount namespace cover these folders.
func refusedMasked(s string, paths []string, sp *spec) (string, string, bool) {
	if len(sp.masks) == 0 || !strings.Contains(s, "No such file or directory") {
		return "", "", false
	}
	for _, p := range paths {
		p = fspath.ResolveExisting(p)
		if fspath.WithinAny(sp.writable, p) {
			continue
		}
		for _, m := range sp.masks {
			if fspath.WithinAny([]string{m}, p) && p != m && writableUnconfined(p) && (onHost(p) || filepath.Dir(p) != m && onHost(filepath.Dir(p))) {
				return m, p, true
			}
		}
	}
	return "", "", false
}

// refusedSocket returns the socket a line reports a failed connection to,
// if it is a socket outside Writable on the host (or a path in the socket
// folders the sandbox covers).
func refusedSocket(s string, paths []string, sp *spec) (string, bool) {
	if !containsAny(s, socketDenials) {
		return "", false
	}
	for _, u := range unixURL().FindAllStringSubmatch(s, -1) {
		paths = append(paths, filepath.Clean(u[1]))
	}
	// Node and others print "connect ENOENT /run/x.sock" as a last field.
	for _, w := range strings.Fields(s) {
		if w = strings.Trim(w, `'"(),;:.`); strings.HasPrefix(w, "/") {
			paths = append(paths, filepath.Clean(w))
		}
	}
	for _, p := range paths {
		p = fspath.ResolveExisting(p)
		if fspath.WithinAny(sp.writable, p) {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil || fi.Mode()&os.ModeSocket == 0 {
			continue
		}
		return p, true
	}
	return "", false
}

// unixURL finds the socket of "unix:///run/docker.sock", "unix:/run/x" and
// socat's "UNIX-CONNECT:/run/x". Compiled on first use, as hostPatterns:
// the helper, which links this package, starts for every command.
var unixURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)unix(?:-connect)?:(?://)?(/[^\s'"),;]+)`)
})

// hostPatterns find the end point a network error names, most specific
// first; each has the host as its first group and, when it names one, the
// port as the second.
var hostPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`/dev/(?:tcp|udp)/([^/\s:]+)/(\d+)`),
		regexp.MustCompile(`Failed to connect to (\S+?) port (\d+)`),
		regexp.MustCompile(`connect to host (\S+?) port (\d+)`),
		regexp.MustCompile(`host='([^']+)', port=(\d+)`),
		regexp.MustCompile(`dial (?:tcp|udp)[46]? (\[[0-9a-fA-F:.]+\]|[^\s:\[]+):(\d+)`),
		regexp.MustCompile(`(?:connect|Connecting) to (\[[0-9a-fA-F:.]+\]|[^\s:\[|()]+):(\d+)`),
		regexp.MustCompile(`(?:ECONNREFUSED|ENETUNREACH|EHOSTUNREACH) (\[[0-9a-fA-F:.]+\]|[^\s:\[]+):(\d+)`),
		regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://(?:[^/\s@'"]*@)?(\[[0-9a-fA-F:.]+\]|[^/\s:'"?#]+)(?::(\d+))?`),
		regexp.MustCompile(`Could not resolve host(?:name)?:? '?([^\s:']+)`),
		regexp.MustCompile(`unable to resolve host address ['‘]([^'’]+)`),
		regexp.MustCompile(`(?:EAI_AGAIN|ENOTFOUND) ([^\s:]+)`),
		regexp.MustCompile(`lookup ([^\s:]+?)(?: on |: |$)`),
		regexp.MustCompile(`Resolving ([^\s(]+)`),
		regexp.MustCompile(`Temporary failure in name resolution.*?'([^'\s]+)'`),
	}
})

// schemePorts are the ports of the URL schemes a message names without one.
var schemePorts = map[string]string{"https": "443", "http": "80", "ssh": "22", "git": "9418", "ftp": "21", "wss": "443", "ws": "80"}

// hostIn returns the end point a network error names, "host:port" or
// "host", or "" when it names none.
func hostIn(s string) string {
	for _, re := range hostPatterns() {
		m := re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		host := strings.Trim(m[1], "[]")
		if host == "" || strings.ContainsAny(host, "/\\") {
			continue
		}
		port := ""
		if len(m) > 2 {
			port = m[2]
		}
		if scheme, _, ok := strings.Cut(m[0], "://"); ok && port == "" {
			port = schemePorts[strings.ToLower(scheme)] // a URL: its scheme's port
		}
		if port == "" {
			return host
		}
		if _, err := strconv.Atoi(port); err != nil {
			return host
		}
		if strings.Contains(host, ":") {
			return "[" + host + "]:" + port
		}
		return host + ":" + port
	}
	return ""
}

// describe says in one sentence what was refused and why.
func describe(d Denial) string {
	p := homeTilde(d.Path)
	switch d.Kind {
	case DeniedWrite:
		if d.crowded {
			return fmt.Sprintf("write to %s refused: this sandbox (Landlock alone) lets no new entry into a folder that holds a read-only one "+
				"(.git, .foya, .agents) on the way; write in a subfolder", p)
		}
		if d.Protected {
			return fmt.Sprintf("write to %s refused: it stays read-only in the sandbox (.git, .foya and .agents folders and Foya's own files: "+
				"programs run what they hold outside the sandbox)", p)
		}
		if d.masked != "" {
			return fmt.Sprintf("write to %s refused: outside the workspace (%s looks empty to commands; they get their own $TMPDIR)", p, d.masked)
		}
		return fmt.Sprintf("write to %s refused: outside the workspace", p)
	case DeniedNetwork:
		if d.Host == "" {
			return "network connection refused: the network is off for commands"
		}
		if isLoopback(d.Host) {
			return fmt.Sprintf("connection to %s refused: the network is off for commands "+
				"(the loopback reaches only servers this command or the session's background commands started; allowing the network reaches the others)", d.Host)
		}
		return fmt.Sprintf("connection to %s refused: the network is off for commands", d.Host)
	case DeniedHidden:
		return fmt.Sprintf("read of %s refused: the sandbox hides it (credentials and Foya's data look empty to commands)", p)
	case DeniedSocket:
		return fmt.Sprintf("connection to the socket %s refused: other programs' sockets are out of reach of commands", p)
	}
	return "a write refused: the file system is read-only outside the workspace"
}

func onHost(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// isLoopback reports whether a "host", "host:port" or "[v6]:port" end
// point is the loopback.
func isLoopback(hostport string) bool {
	host := hostport
	if ap, err := netip.ParseAddrPort(hostport); err == nil {
		return ap.Addr().IsLoopback()
	}
	if h, _, ok := strings.Cut(hostport, ":"); ok && strings.Count(hostport, ":") == 1 {
		host = h
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && a.IsLoopback()
}

// homeTilde writes the user's home folder as "~" at the start of p.
func homeTilde(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" || !filepath.IsAbs(home) {
		return p
	}
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
		return "~" + string(filepath.Separator) + rest
	}
	return p
}

// onTheWay reports whether p's folder is on the path to a read-only folder,
// where Landlock without namespaces allows no new entries.
func onTheWay(p string, readOnly []string) bool {
	dir := filepath.Dir(p)
	for _, ro := range readOnly {
		if ro != dir && fspath.WithinAny([]string{dir}, ro) {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// pathsIn finds the paths a message names: quoted ('…', ‘…’, "…", `…'),
// the fields of "program: [line N: ]path: error", and words that start with
// a slash. Relative ones are taken relative to dir.
func pathsIn(line, dir string) []string {
	var out []string
	add := func(p string) {
		p = strings.TrimSpace(p)
		if p == "" || strings.ContainsAny(p, "\n\x00") {
			return
		}
		if !filepath.IsAbs(p) {
			if dir == "" || strings.Contains(p, " ") {
				return
			}
			p = filepath.Join(dir, p)
		}
		out = append(out, filepath.Clean(p))
	}
	for _, q := range [][2]string{{"'", "'"}, {"‘", "’"}, {"\"", "\""}, {"`", "'"}} {
		rest := line
		for {
			i := strings.Index(rest, q[0])
			if i < 0 {
				break
			}
			rest = rest[i+len(q[0]):]
			j := strings.Index(rest, q[1])
			if j < 0 {
				break
			}
			add(rest[:j])
			rest = rest[j+len(q[1]):]
		}
	}
	fields := strings.Split(strings.TrimSpace(line), ": ")
	for i, f := range fields {
		switch {
		case i == 0 || i == len(fields)-1:
			// the program's name, and the error
		case strings.HasPrefix(f, "line ") || strings.ContainsAny(f, "'\"‘’`"):
		case !strings.Contains(f, " "):
			add(f)
		default:
			for _, w := range strings.Fields(f) {
				if strings.HasPrefix(w, "/") {
					add(w)
				}
			}
		}
	}
	return out
}
