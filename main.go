// Command foya is Foya's single binary: with arguments it runs the command
// line (exec, sessions, show, --version and the internal sandbox helper);
// without arguments it opens the desktop app.
//
// This file is wiring only. The command line lives in backend/cli, the
// desktop's own bound methods and the event bridge in app.go and bridge.go,
// the bound kernel API in backend/api, everything else in backend/kernel.
package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"foya/backend/api"
	"foya/backend/cli"
	_ "foya/backend/sandbox/helperentry"
)

// assets is the built front end. In a fresh clone frontend/dist holds only
// .gitkeep, so the package compiles (and vets) before the front end is built;
// such a binary shows Wails' placeholder page instead of Foya.
//
//go:embed all:frontend/dist
var assets embed.FS

// icon is the window icon on Linux.
//
//go:embed build/appicon.png
var icon []byte

// started is when the process started (package variables are set before
// main runs): the smoke report measures the first paint from it.
var started = time.Now()

func main() {
	cli.Assets = assets
	if len(os.Args) > 1 {
		os.Exit(cli.Main(os.Args[1:]))
	}
	if err := runDesktop(); err != nil {
		fmt.Fprintf(os.Stderr, "foya: desktop: %v\n", err)
		os.Exit(1)
	}
}

func runDesktop() error {
	// GTK panics without a display; say so instead. `wails build` and
	// `wails dev` also run this binary, headless and without GTK, to write
	// their (unused, git-ignored) bindings; they mark that run with
	// tsprefix in the environment.
	_, generating := os.LookupEnv("tsprefix")
	if runtime.GOOS == "linux" && !generating && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display (DISPLAY and WAYLAND_DISPLAY are unset): start foya from a desktop session, or use foya exec without a window")
	}
	smoke := os.Getenv("FOYA_SMOKE") == "1"
	app := NewApp(AppOptions{
		Smoke:           smoke,
		SmokeOpen:       os.Getenv("FOYA_SMOKE_OPEN"),
		SmokeHoldScript: smoke && os.Getenv("FOYA_SMOKE_HOLD") == "1",
		ProcessStarted:  started,
		Out:             os.Stdout,
		In:              os.Stdin,
	})
	// The kernel's API, bound as window.go.api.Service. Its context ends
	// at shutdown, before the kernel closes, so that calls under way stop.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	service := api.New(ctx, app.openKernel)
	shutdown := func(wctx context.Context) {
		stop()
		api.Wait(service) // the runs end before the kernel closes
		app.shutdown(wctx)
	}
	err := wails.Run(&options.App{
		Title:       "Foya",
		Width:       1100,
		Height:      760,
		MinWidth:    640,
		MinHeight:   420,
		AssetServer: &assetserver.Options{Assets: assets},
		// The light theme's --bg (frontend/src/styles.css): what the window
		// shows before index.html's static shell paints, never white.
		BackgroundColour: &options.RGBA{R: 246, G: 245, B: 241, A: 255},
		OnStartup:        app.startup,
		OnShutdown:       shutdown,
		Bind:             []any{app, service},
		// WebKit composites in software: with Linux options given, Wails
		// leaves the webview's hardware acceleration at its zero value,
		// Always, which on machines without a working GPU (virtual
		// machines, Xvfb, some drivers) holds the first paint for seconds
		// or leaves the window blank; Wails' own default without options
		// is Never for that reason.
		Linux: &linux.Options{ProgramName: "foya", Icon: icon, WebviewGpuPolicy: linux.WebviewGpuPolicyNever},
	})
	if err != nil && strings.Contains(err.Error(), "build tags") {
		return fmt.Errorf("%w (this binary was built without the desktop; build it with make build, which uses tags desktop,production,webkit2_41)", err)
	}
	return err
}
