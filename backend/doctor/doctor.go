package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"foya/backend/isolate"
	"foya/backend/kernel"
	"foya/backend/mcp/mcpconfig"
	"foya/backend/profiles"
	"foya/backend/sandbox"
	"foya/backend/store"
	"foya/backend/tools/files"
	"foya/backend/trash"
	"foya/backend/workspace"
)

// Statuses of a doctor finding.
const (
	OK      = "ok"
	Warning = "warning" // works, with a limit worth knowing
	Problem = "problem" // does not work; Fix says what to do
)

// ProviderTimeout is how long Run waits for each provider when
// Options does not say.
const ProviderTimeout = 5 * time.Second

// Options configure Run.
type Options struct {
	// DBPath is the database, as Options.DBPath.
	DBPath string
	// Probe, if set, replaces sandbox.Probe (tests).
	Probe func() sandbox.Capability
	// Trash, if set, replaces the user's trash (tests).
	Trash *trash.Trash
	// ProviderTimeout bounds each provider's check; 0 means
	// ProviderTimeout. The providers are checked at once.
	ProviderTimeout time.Duration
}

// Finding is one thing Run looked at: what it found and, unless Status
// is OK, what to do about it.
type Finding struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Database is the database's finding.
type Database struct {
	Finding
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	// Size is the database file's size plus its write-ahead log's, in bytes.
	Size int64 `json:"size"`
	// Integrity is what PRAGMA integrity_check said: "ok", its problems,
	// or "" when it could not run.
	Integrity []string `json:"integrity,omitempty"`
}

// Sandbox is what confines commands on this machine.
type Sandbox struct {
	Finding
	Mechanism string `json:"mechanism"`
	Landlock  int    `json:"landlockAbi"`
	// Namespaces is true when unprivileged user, mount, PID and network
	// namespaces work.
	Namespaces bool   `json:"namespaces"`
	Bubblewrap bool   `json:"bubblewrap"`
	Weaker     string `json:"weaker,omitempty"`
}

// Trash is where deleted files go.
type Trash struct {
	Finding
	Path string `json:"path"`
}

// Provider is one provider profile's reachability.
type Provider struct {
	Finding
	BaseURL string                  `json:"baseUrl"`
	Model   string                  `json:"model"`
	Default bool                    `json:"default,omitempty"`
	Check   *profiles.ProviderCheck `json:"check,omitempty"`
	// Window is the model's context window and where it comes from: the
	// server, the profile's setting, or a guess.
	Window *profiles.ContextWindow `json:"window,omitempty"`
}

// Providers is every provider profile's check, and a summary.
type Providers struct {
	Finding
	Profiles []Provider `json:"profiles"`
}

// Report is what Run found.
type Report struct {
	Version   string    `json:"version"`
	Commit    string    `json:"commit"`
	Date      string    `json:"date"`
	Folders   []Finding `json:"folders"`
	Database  Database  `json:"database"`
	Sandbox   Sandbox   `json:"sandbox"`
	Trash     Trash     `json:"trash"`
	Providers Providers `json:"providers"`
	MCP       MCP       `json:"mcp"`
	Workspace Workspace `json:"workspace"`
	Copies    Copies    `json:"copies"`
}

// Copies is the isolated sessions' copies (docs/isolated-sessions.md):
// one line for them all, then one per copy with its disk use.
type Copies struct {
	Finding
	Dir  string               `json:"dir"`
	List []kernel.SessionCopy `json:"list"`
}

// Workspace is the disk the workspace indexes take: the
// contents that let shell commands' changes be reverted.
type Workspace struct {
	Finding
	Usage kernel.WorkspaceUsage `json:"usage"`
}

// MCP is the MCP servers' finding: one line for them all, then one
// per server (the user's, and those of the folder doctor runs in).
type MCP struct {
	Finding
	Servers []Finding `json:"servers"`
}

// Problems returns the findings whose status is Problem.
func (r Report) Problems() []Finding {
	all := append([]Finding{}, r.Folders...)
	all = append(all, r.Database.Finding, r.Sandbox.Finding, r.Trash.Finding, r.Providers.Finding, r.MCP.Finding, r.Workspace.Finding, r.Copies.Finding)
	all = append(all, r.MCP.Servers...)
	for _, p := range r.Providers.Profiles {
		all = append(all, p.Finding)
	}
	var out []Finding
	for _, f := range all {
		if f.Status == Problem {
			out = append(out, f)
		}
	}
	return out
}

// Run looks at what Foya needs on this machine: its folders, the
// database (read only: size and PRAGMA integrity_check), what confines
// commands, the trash, and whether each provider profile answers. It is a
// function, not a method, because a database that cannot be opened is one
// of the things it reports: it opens a kernel only to read the profiles of
// a sound database, and never creates one. Every problem is a finding with
// what to do; Run itself does not fail.
func Run(ctx context.Context, opts Options) Report {
	b := kernel.BuildInfo()
	r := Report{Version: b.Version, Commit: b.Commit, Date: b.Date}
	path, dataDir, userRules, err := kernel.ResolvePaths(kernel.Options{DBPath: opts.DBPath})
	if err != nil {
		r.Folders = []Finding{{Name: "data folder", Status: Problem, Detail: err.Error(),
			Fix: "set HOME (or XDG_DATA_HOME), or name a database with --db or FOYA_DB"}}
		r.Database = Database{Finding: Finding{Name: "database", Status: Problem,
			Detail: "no database path: the data folder is unknown", Fix: "see the data folder above"}}
	} else {
		if abs, err := filepath.Abs(dataDir); err == nil {
			dataDir = abs
		}
		r.Folders = doctorFolders(dataDir, userRules)
		r.Database = doctorDatabase(ctx, path)
		r.Workspace = doctorWorkspace(ctx, dataDir, r.Database)
		r.Copies = doctorCopies(ctx, kernel.CopiesDir(dataDir), r.Database)
	}
	probe := opts.Probe
	if probe == nil {
		probe = sandbox.Probe
	}
	r.Sandbox = doctorSandbox(probe())
	tr := opts.Trash
	if tr == nil {
		tr = trash.Default()
	}
	r.Trash = doctorTrash(tr)
	r.Providers = doctorProviders(ctx, r.Database, opts, probe)
	r.MCP = doctorMCP(ctx, r.Database, probe)
	return r
}

// doctorWorkspace reports the workspace indexes' disk use, read only, and
// the bound on the kept contents when the database can be read.
func doctorWorkspace(ctx context.Context, dataDir string, db Database) Workspace {
	var lim workspace.Limits // zero: the bound is not known
	switch {
	case !db.Exists:
		lim = workspace.Limits{MaxFile: workspace.DefaultMaxFile, MaxTotal: workspace.DefaultMaxTotal}
	case db.Status != Problem && db.Integrity != nil:
		if st, err := store.Open(ctx, db.Path); err == nil {
			lim = kernel.StoredWorkspaceLimits(ctx, st)
			st.Close()
		}
	}
	u := kernel.WorkspaceUsageIn(dataDir, lim)
	d := Workspace{Usage: u, Finding: Finding{Name: "workspace index", Status: OK,
		Detail: fmt.Sprintf("%s in %d contents and %d session indexes, in %s (deleting a session prunes what only it kept)",
			files.Size(u.BlobBytes+u.IndexBytes), u.Blobs, u.Indexes, u.Dir)}}
	if u.MaxKeptBytes == 0 {
		d.Detail += "; kept contents " + files.Size(u.BlobBytes) + ", their bound (workspace.maxKeptBytes) not known: the database could not be read"
		return d
	}
	d.Detail += fmt.Sprintf("; kept contents %s of the %s workspace.maxKeptBytes allows", files.Size(u.BlobBytes), files.Size(u.MaxKeptBytes))
	if u.BlobBytes >= u.MaxKeptBytes/10*9 {
		d.Status = Warning
		d.Detail += ": contents past it are not kept, so shell commands' changes to them are not restorable"
		d.Fix = "raise it (foya settings set workspace.maxKeptBytes 8GiB), or delete the sessions you no longer need"
	}
	return d
}

// doctorCopies lists the isolated sessions' copies on disk with their disk
// use, read only; with a sound database, those whose session is gone
// (orphans the next start of Foya removes) are told apart.
func doctorCopies(ctx context.Context, dir string, db Database) Copies {
	d := Copies{Dir: dir, List: []kernel.SessionCopy{}, Finding: Finding{Name: "isolated copies", Status: OK}}
	list, err := (&isolate.Isolator{Dir: dir}).List()
	if err != nil {
		d.Status, d.Detail, d.Fix = Warning, err.Error(), "check the folder's permissions: "+dir
		return d
	}
	var st *store.Store
	if db.Exists && db.Status != Problem && db.Integrity != nil {
		if s, err := store.Open(ctx, db.Path); err == nil {
			st = s
			defer st.Close()
		}
	}
	var total int64
	orphans := 0
	for _, c := range list {
		sc := kernel.SessionCopy{SessionID: c.SessionID, Kind: string(c.Kind), Dir: c.Dir, Folder: c.Folder, Branch: c.Branch, Bytes: c.Bytes}
		if st != nil {
			if _, err := st.Session(ctx, c.SessionID); errors.Is(err, store.ErrNotFound) {
				sc.Orphan = true
				orphans++
			}
		}
		total += max(c.Bytes, 0)
		d.List = append(d.List, sc)
	}
	if len(list) == 0 {
		d.Detail = "none, in " + dir
		return d
	}
	d.Detail = fmt.Sprintf("%d %s taking %s, in %s", len(list), plural(len(list), "copy", "copies"), files.Size(total), dir)
	if orphans > 0 {
		d.Status = Warning
		d.Detail += fmt.Sprintf("; %d of them with no session (left by a crash)", orphans)
		d.Fix = "start Foya (or any foya command that opens the database) to remove them"
	}
	return d
}

// mcpWait bounds how long doctor waits for MCP servers to start.
const mcpWait = 10 * time.Second

// doctorMCP starts the user's MCP servers, and the approved ones of the
// folder doctor runs in, and says how each is: ready with its tools, or
// why not, with its standard error's end.
func doctorMCP(ctx context.Context, db Database, probe func() sandbox.Capability) MCP {
	d := MCP{Finding: Finding{Name: "mcp servers", Status: OK}, Servers: []Finding{}}
	addFix := "add one: foya mcp add NAME -- COMMAND [ARGS...], or foya mcp import FILE"
	if db.Status == Problem || !db.Exists || db.Integrity == nil {
		d.Detail, d.Fix = "not checked: no sound database yet", "see the database above"
		d.Status = Warning
		if !db.Exists {
			d.Status, d.Detail, d.Fix = OK, "none configured (no database yet)", ""
		}
		return d
	}
	k, err := kernel.Open(ctx, kernel.Options{DBPath: db.Path, Headless: true, Probe: probe})
	if err != nil {
		d.Status, d.Detail, d.Fix = Warning, "not checked: "+err.Error(), "run foya doctor again when the other Foya is done"
		return d
	}
	defer k.Close()
	wd, _ := os.Getwd()
	ctx, cancel := context.WithTimeout(ctx, mcpWait)
	defer cancel()
	list, err := k.MCP().List(ctx, wd)
	if err != nil {
		d.Status, d.Detail, d.Fix = Warning, "not checked: "+err.Error(), "see foya mcp list"
		return d
	}
	for _, p := range list.Problems {
		d.Servers = append(d.Servers, Finding{Name: "config", Status: Problem, Detail: p,
			Fix: "fix the file at that place; the other servers still load"})
	}
	bad := 0
	for _, s := range list.Servers {
		f := Finding{Name: s.Name, Status: OK, Detail: fmt.Sprintf("%s, %s: %s", s.Scope, s.Transport, s.State)}
		switch s.State {
		case "ready":
			f.Detail += fmt.Sprintf(", %d %s", s.Tools, plural(s.Tools, "tool", "tools"))
		case mcpconfig.Unapproved:
			f.Status, f.Fix = Warning, "after checking its command line ("+s.CommandLine+"): foya mcp approve "+s.Name
		case mcpconfig.Disabled:
		default:
			f.Status = Problem
			if s.Error != "" {
				f.Detail += ": " + s.Error
			}
			f.Fix = "check that " + s.CommandLine + " runs by itself"
			if s.Transport != "stdio" {
				f.Fix = "check that the server at " + s.URL + " is running and that this machine reaches it"
			}
			if s.Stderr != "" {
				f.Fix += "; its last error output: " + lastLine(s.Stderr)
			}
		}
		if f.Status != OK {
			bad++
		}
		d.Servers = append(d.Servers, f)
	}
	switch {
	case len(list.Servers) == 0 && len(list.Problems) == 0:
		d.Detail, d.Fix = "none configured", addFix
	default:
		d.Detail = fmt.Sprintf("%d %s, %d ready", len(list.Servers), plural(len(list.Servers), "server", "servers"), len(list.Servers)-bad)
		if bad > 0 || len(list.Problems) > 0 {
			d.Status, d.Fix = Warning, "see each server below"
		}
	}
	return d
}

// lastLine is the last non-empty line of text, at most 200 bytes.
func lastLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	l := lines[len(lines)-1]
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return l
}

// doctorFolders looks at the data folder, where the settings are, the
// user's rules file and the provider key file.
func doctorFolders(dataDir, userRules string) []Finding {
	data := Finding{Name: "data folder", Status: OK, Detail: dataDir}
	switch fi, err := os.Stat(dataDir); {
	case errors.Is(err, fs.ErrNotExist):
		data.Detail += " (not made yet: Foya makes it at its first start)"
	case err != nil:
		data.Status, data.Detail = Problem, err.Error()
		data.Fix = "make the folder readable by you, or name another database with --db or FOYA_DB"
	case !fi.IsDir():
		data.Status, data.Detail = Problem, dataDir+" is not a folder"
		data.Fix = "move that file aside (mv " + dataDir + " " + dataDir + ".old); Foya makes the folder at its next start"
	default:
		if err := writable(dataDir); err != nil {
			data.Status, data.Detail = Problem, dataDir+" is not writable: "+err.Error()
			data.Fix = "make it yours and writable (chmod u+rwx " + dataDir + ")"
		}
	}
	config := Finding{Name: "settings", Status: OK,
		Detail: "Foya has no config folder: settings are in the database (foya settings lists them)"}
	if userRules != "" {
		switch _, err := os.Stat(userRules); {
		case err == nil:
			config.Detail += "; your rules file: " + userRules
		case errors.Is(err, fs.ErrNotExist):
			config.Detail += "; your rules file would be " + userRules + " (none yet)"
		default:
			config.Status, config.Detail = Problem, "your rules file: "+err.Error()
			config.Fix = "make " + userRules + " readable by you"
		}
	}
	keys := Finding{Name: "provider keys", Status: OK}
	keyFile := filepath.Join(dataDir, profiles.KeyFile)
	switch fi, err := os.Stat(keyFile); {
	case errors.Is(err, fs.ErrNotExist):
		keys.Detail = "no key file: keys are in the system keyring, if any are stored"
	case err != nil:
		keys.Status, keys.Detail = Problem, err.Error()
		keys.Fix = "make " + keyFile + " readable by you only (chmod 600 " + keyFile + ")"
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0:
		keys.Status = Problem
		keys.Detail = fmt.Sprintf("%s holds API keys and others may read it (mode %04o)", keyFile, fi.Mode().Perm())
		keys.Fix = "chmod 600 " + keyFile
	default:
		keys.Detail = keyFile + " (where there is no system keyring), readable by you only"
	}
	return []Finding{data, config, keys}
}

// writable checks that a file can be made in dir, and removes it.
func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".foya-doctor-")
	if err != nil {
		return err
	}
	return errors.Join(f.Close(), os.Remove(f.Name()))
}

// damagedFix is what to do about a database that cannot be read.
func damagedFix(path string) string {
	return "quit Foya, move the file aside (mv " + path + " " + path + ".broken) and Foya starts with an empty database; " +
		"sqlite3 " + path + ".broken .recover can save what is left"
}

func doctorDatabase(ctx context.Context, path string) Database {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	d := Database{Finding: Finding{Name: "database", Status: OK}, Path: path}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.Detail = path + ": not made yet (Foya makes it at its first start)"
		return d
	case err != nil:
		d.Status, d.Detail, d.Fix = Problem, err.Error(), "make "+path+" readable and writable by you"
		return d
	case fi.IsDir():
		d.Status, d.Detail = Problem, path+" is a folder, not a database"
		d.Fix = "move it aside (mv " + path + " " + path + ".old), or name another database with --db or FOYA_DB"
		return d
	}
	d.Exists, d.Size = true, fi.Size()
	if wal, err := os.Stat(path + "-wal"); err == nil {
		d.Size += wal.Size()
	}
	size := files.Size(d.Size)
	problems, err := store.Check(ctx, path)
	switch {
	case err != nil && strings.Contains(err.Error(), "locked"):
		d.Status, d.Detail = Warning, size+"; integrity not checked: "+err.Error()
		d.Fix = "run foya doctor again when the other Foya is done"
	case err != nil:
		d.Status, d.Detail, d.Fix = Problem, size+"; "+err.Error(), damagedFix(path)
	case len(problems) > 0:
		d.Integrity = problems
		d.Status = Problem
		d.Detail = fmt.Sprintf("%s, %s; integrity_check found problems: %s", path, size, strings.Join(problems, "; "))
		d.Fix = damagedFix(path)
	default:
		d.Integrity = []string{"ok"}
		d.Detail = path + ", " + size + ", integrity ok"
	}
	return d
}

func doctorSandbox(c sandbox.Capability) Sandbox {
	d := Sandbox{Finding: Finding{Name: "sandbox", Status: OK}, Mechanism: c.Mechanism,
		Landlock: c.Landlock, Namespaces: c.NetNS, Bubblewrap: c.Bubblewrap, Weaker: c.Weaker}
	var parts []string
	if runtime.GOOS == "linux" {
		ll := "Landlock: none in this kernel"
		if c.Landlock > 0 {
			ll = fmt.Sprintf("Landlock ABI %d", c.Landlock)
		}
		ns := "user, mount, PID and network namespaces: refused"
		if c.NetNS {
			ns = "user, mount, PID and network namespaces: work"
		}
		bw := "bubblewrap: not installed or not working"
		if c.Bubblewrap {
			bw = "bubblewrap: works"
		}
		parts = append(parts, ll, ns, bw)
	}
	mech := c.Mechanism
	if mech == "" {
		mech = "none"
	}
	d.Detail = "commands are confined by " + mech
	if len(parts) > 0 {
		d.Detail += " (" + strings.Join(parts, "; ") + ")"
	}
	if c.Reason != "" {
		d.Detail += ": " + c.Reason
	}
	switch {
	case c.Mechanism == "":
		d.Status = Problem
		d.Fix = "commands cannot be confined here, so Foya asks before each one; " + noSandboxFix()
	case c.Weaker != "":
		d.Status = Warning
		d.Fix = "Foya asks before each command because " + c.Weaker + "; " + usernsFix()
	}
	return d
}

// noSandboxFix says how to get a sandbox on a machine that has none.
func noSandboxFix() string {
	if runtime.GOOS == "linux" {
		return "use a Linux kernel with Landlock (5.13 or later, with landlock in its lsm= list), " +
			"or install bubblewrap (apt-get install bubblewrap)"
	}
	return "see the reason above"
}

// usernsFix says why unprivileged user namespaces are refused here, when
// the kernel's settings tell, and how to allow them.
func usernsFix() string {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	switch {
	case read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
		return "AppArmor restricts unprivileged user namespaces (Ubuntu 23.10 and later): " +
			"sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0 allows them (a file in /etc/sysctl.d keeps it)"
	case read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
		return "the kernel refuses unprivileged user namespaces: sudo sysctl kernel.unprivileged_userns_clone=1 allows them"
	case read("/proc/sys/user/max_user_namespaces") == "0":
		return "user namespaces are off: sudo sysctl user.max_user_namespaces=10000 allows them"
	}
	return "user namespaces are refused here (in a container, start it with them allowed, or run Foya outside it)"
}

func doctorTrash(t *trash.Trash) Trash {
	d := Trash{Finding: Finding{Name: "trash", Status: OK}}
	home, err := t.Home()
	if err != nil {
		d.Status, d.Detail = Problem, err.Error()
		d.Fix = "set HOME: deleted files go to the trash, and without one Foya refuses to delete"
		return d
	}
	d.Path, d.Detail = home, home
	switch fi, err := os.Stat(home); {
	case errors.Is(err, fs.ErrNotExist):
		d.Detail += " (not made yet: the first delete makes it)"
	case err != nil:
		d.Status, d.Detail = Problem, err.Error()
		d.Fix = "make " + home + " yours and writable, or move it aside"
	case !fi.IsDir():
		d.Status, d.Detail = Problem, home+" is not a folder, so deleting files fails"
		d.Fix = "move that file aside (mv " + home + " " + home + ".old)"
	case runtime.GOOS != "windows":
		if err := writable(home); err != nil {
			d.Status, d.Detail = Problem, home+" is not writable, so deleting files fails: "+err.Error()
			d.Fix = "make it yours and writable (chmod u+rwx " + home + ")"
		}
	}
	return d
}

// doctorProviders checks every profile at once, each bounded by the
// timeout, from a kernel opened on the database when it is sound.
func doctorProviders(ctx context.Context, db Database, opts Options, probe func() sandbox.Capability) Providers {
	d := Providers{Finding: Finding{Name: "providers", Status: OK}, Profiles: []Provider{}}
	addFix := "add one: foya providers add NAME --base-url URL --model MODEL [--api-key-stdin]"
	switch {
	case db.Status == Problem || (db.Exists && db.Integrity == nil):
		d.Status, d.Detail, d.Fix = Warning, "not checked: the database could not be read", "see the database above"
		return d
	case !db.Exists:
		d.Status, d.Detail, d.Fix = Warning, "no provider profiles (no database yet)"+envServer(), addFix
		return d
	}
	k, err := kernel.Open(ctx, kernel.Options{DBPath: db.Path, Headless: true, Probe: probe})
	if err != nil {
		d.Status, d.Detail, d.Fix = Warning, "not checked: "+err.Error(), "run foya doctor again when the other Foya is done"
		return d
	}
	defer k.Close()
	profiles, err := k.Profiles().List(ctx)
	if err != nil {
		d.Status, d.Detail, d.Fix = Warning, "not checked: "+err.Error(), "see the database above"
		return d
	}
	if len(profiles) == 0 {
		d.Status, d.Detail, d.Fix = Warning, "no provider profiles"+envServer(), addFix
		return d
	}
	timeout := opts.ProviderTimeout
	if timeout <= 0 {
		timeout = ProviderTimeout
	}
	d.Profiles = make([]Provider, len(profiles))
	var wg sync.WaitGroup
	for i, p := range profiles {
		wg.Go(func() { d.Profiles[i] = checkProvider(ctx, k, p, timeout) })
	}
	wg.Wait()
	bad := 0
	for _, p := range d.Profiles {
		if p.Status != OK {
			bad++
		}
	}
	d.Detail = fmt.Sprintf("%d profiles, %d answer", len(profiles), len(profiles)-bad)
	if bad > 0 {
		d.Status, d.Fix = Warning, "see each profile below"
	}
	return d
}

// envServer notes the model server foya exec takes from the environment
// when there is no profile, if any.
func envServer() string {
	if u := os.Getenv("OPENAI_BASE_URL"); u != "" {
		return "; without one, foya exec uses OPENAI_BASE_URL (" + u + ")"
	}
	return ""
}

// checkProvider checks one profile with Profiles().Test within timeout.
func checkProvider(ctx context.Context, k *kernel.Kernel, p profiles.Provider, timeout time.Duration) (d Provider) {
	d = Provider{Finding: Finding{Name: p.Name, Status: Problem}, BaseURL: p.BaseURL, Model: p.Model, Default: p.Default}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	window := make(chan *profiles.ContextWindow, 1)
	go func() {
		w, err := k.Profiles().Window(ctx, p.Name, "")
		if err != nil {
			window <- nil
			return
		}
		window <- &w
	}()
	defer func() { d.Window = <-window }()
	c, err := k.Profiles().Test(ctx, p.Name)
	if err != nil {
		d.Detail, d.Fix = err.Error(), "run foya providers test "+p.Name+" for details"
		return d
	}
	d.Check = &c
	edit := "foya providers edit " + p.Name
	switch {
	case c.OK():
		d.Status = OK
		d.Detail = fmt.Sprintf("%s: %s; a streamed request answered in %d ms", p.BaseURL, c.Models.Message, c.Stream.Millis)
	case ctx.Err() != nil:
		d.Detail = fmt.Sprintf("no answer from %s within %s", p.BaseURL, timeout)
		d.Fix = "start the model server, or correct the base URL (" + edit + " --base-url URL)"
	case c.Models.Status == profiles.CheckDown:
		d.Detail = c.Models.Message
		d.Fix = "start the model server, or correct the base URL (" + edit + " --base-url URL)"
	case c.Models.Status == profiles.CheckUnauthorized || c.Stream.Status == profiles.CheckUnauthorized:
		d.Detail = firstFailure(c)
		d.Fix = "set the right key: " + edit + " --api-key-stdin"
	case c.Models.Status == profiles.CheckWrongModel || c.Stream.Status == profiles.CheckWrongModel:
		d.Detail = firstFailure(c)
		d.Fix = "choose a model the server lists: " + edit + " --model MODEL"
	default:
		d.Detail = firstFailure(c)
		d.Fix = "check the base URL (it usually ends in /v1); foya providers test " + p.Name + " shows each step"
	}
	return d
}

// firstFailure is the message of the first step of c that did not pass.
func firstFailure(c profiles.ProviderCheck) string {
	if c.Models.Status != profiles.CheckOK {
		return c.Models.Message
	}
	return c.Stream.Message
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
