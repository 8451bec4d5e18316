package cli

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
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
// to open, with the token.
func serveCmd(ctx context.Context, args []string, env Env) int {
	fset, db := newFlags("foya serve", env)
	port := fset.Int("port", 0, "the port to listen on, on 127.0.0.1 and [::1] only (default: a free one)")
	open := fset.Bool("open", false, "open the URL in the default browser")
	fset.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: foya serve [--port N] [--open] [--db FILE]\n\nServes Foya's UI and API on the loopback interface until interrupted.\nThe first line of output is the URL to open; it carries the token that guards the server.\n\nFlags:")
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
	fmt.Fprintln(env.Stdout, srv.URL())
	fmt.Fprintln(env.Stderr, "foya: serving on the loopback interface; open the URL above (interrupt to stop)")
	if *open {
		if err := openBrowser(srv.URL()); err != nil {
			fmt.Fprintf(env.Stderr, "foya: could not open a browser (%v): open the URL yourself\n", err)
		}
	}

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

// openBrowser opens url with the desktop's opener.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("cmd", "/c", "start", "", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
