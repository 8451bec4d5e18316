package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"foya/backend/api"
	"foya/backend/kernel"
	"foya/backend/server"
)

// Assets is the binary's embedded tree holding frontend/dist; main sets
// it. nil (tests, a binary without the front end) serves a page saying the
// front end is not built.
var Assets fs.FS

// serveCmd is foya serve [--port N] [--open]: the UI and its API over HTTP
// on the loopback interface. The first line on standard output is the URL
// to open, with the token in its fragment.
func serveCmd(ctx context.Context, args []string, env Env) int {
	fset, db := newFlags("foya serve", env)
	port := fset.Int("port", 0, "the port to listen on, on 127.0.0.1 and [::1] only (default: a free one)")
	open := fset.Bool("open", false, "open the URL in the browser ($BROWSER, else the desktop's default) through a file only you can read, so that the token is on no command line")
	fset.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: foya serve [--port N] [--open] [--db FILE]\n\nServes Foya's UI and API on the loopback interface until interrupted.\nThe first line of output is the URL to open; it carries the token that guards the server\n(after #, so the browser never sends it; the page keeps it for its tab).\n\nFlags:")
		fset.PrintDefaults()
	}
	pos, code, ok := parseFlags(fset, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		fmt.Fprintf(env.Stderr, "foya serve: unexpected argument %q\n", pos[0])
		return ExitUsage
	}
	if *port < 0 || *port > 65535 {
		fmt.Fprintf(env.Stderr, "foya serve: --port %d: give a port from 1 to 65535, or 0 for a free one\n", *port)
		return ExitUsage
	}
	assets := frontEnd(env)
	// Someone answers approvals here: the browser.
	k, err := kernel.Open(ctx, kernel.Options{DBPath: dbPath(*db, env), Tools: env.Tools, Probe: env.Probe})
	if err != nil {
		return fail(env, err)
	}
	defer k.Close()
	noteReadOnly(k, env)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	svc := api.New(ctx, func() (*kernel.Kernel, error) { return k, nil })
	srv, err := server.Listen(server.Options{Kernel: k, Service: svc, Assets: assets,
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))})
	if err != nil {
		return fail(env, err)
	}
	// An interrupt stops the server cleanly from the moment anyone can
	// know it runs (the URL printed, a browser opened): one that came
	// before the handler would kill the process without its clean-up
	// (the page with the token left behind).
	sig := env.Interrupt
	if sig == nil {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(ch)
		sig = ch
	}
	go func() {
		select {
		case <-sig:
			fmt.Fprintln(env.Stderr, "foya: stopping")
			cancel()
		case <-ctx.Done():
		}
	}()
	fmt.Fprintln(env.Stdout, srv.URL())
	fmt.Fprintln(env.Stderr, "foya: serving on the loopback interface; open the URL above (interrupt to stop)")
	if *open {
		// The opener's command line is readable by every user
		// (/proc/PID/cmdline): it gets the path of a file only we can read,
		// which sends the browser on to the URL.
		page, remove, err := writeOpenPage(srv.URL(), env)
		if err == nil {
			defer remove()
			err = openBrowser(page, env)
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "foya: could not open a browser (%v): open the URL above yourself\n", err)
		}
	}

	err = srv.Serve(ctx)
	cancel() // runs under way end as cancelled
	api.Wait(svc)
	if err != nil {
		return fail(env, err)
	}
	return ExitOK
}

// frontEnd returns the built front end from Assets, or nil with a notice.
func frontEnd(env Env) fs.FS {
	if Assets != nil {
		if sub, err := fs.Sub(Assets, "frontend/dist"); err == nil {
			if _, err := fs.Stat(sub, "index.html"); err == nil {
				return sub
			}
		}
	}
	fmt.Fprintln(env.Stderr, "foya: notice: this binary has no built front end (make frontend, then build again): the API works, the pages do not")
	return nil
}

// writeOpenPage writes a page that redirects to url (which carries the
// token) into a new directory of mode 0700, as a file of mode 0600, and
// returns its path and a function that removes both; as Jupyter does for
// the same reason. The directory is under $XDG_RUNTIME_DIR when set (the
// user's own), else the temporary directory.
func writeOpenPage(url string, env Env) (string, func(), error) {
	base := env.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		base = os.TempDir()
	}
	dir, err := os.MkdirTemp(base, "foya-serve-")
	if err != nil {
		return "", nil, fmt.Errorf("make a directory for the page that opens Foya: %w", err)
	}
	remove := func() { os.RemoveAll(dir) }
	target, _ := json.Marshal(url) // a JavaScript string, <, > and & escaped
	attr := html.EscapeString(url)
	page := "<!doctype html>\n<html><head><meta charset=\"utf-8\">\n" +
		"<meta http-equiv=\"refresh\" content=\"1;url=" + attr + "\">\n<title>Opening Foya</title></head>\n" +
		"<body><p>Opening Foya. If nothing happens, <a href=\"" + attr + "\">open Foya</a>.</p>\n" +
		"<script>window.location.replace(" + string(target) + ")</script></body></html>\n"
	path := filepath.Join(dir, "open.html")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = f.WriteString(page)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		remove()
		return "", nil, fmt.Errorf("write the page that opens Foya: %w", err)
	}
	return path, remove, nil
}

// openBrowser opens path with $BROWSER when set (the first of its
// list-separated commands; %s in it stands for the path, else the path is
// its last argument), else with the desktop's opener.
func openBrowser(path string, env Env) error {
	var cmd *exec.Cmd
	if b, _, _ := strings.Cut(env.Getenv("BROWSER"), string(os.PathListSeparator)); strings.TrimSpace(b) != "" {
		args := strings.Fields(b)
		if strings.Contains(b, "%s") {
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "%s", path)
			}
		} else {
			args = append(args, path)
		}
		cmd = exec.Command(args[0], args[1:]...)
	} else {
		switch runtime.GOOS {
		case "darwin":
			cmd = exec.Command("open", path)
		case "windows":
			cmd = exec.Command("cmd", "/c", "start", "", path)
		default:
			cmd = exec.Command("xdg-open", path)
		}
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
