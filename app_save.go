package main

import (
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"foya/backend/api"
	"foya/backend/kernel"
)

// SaveText shows the system's save dialog, proposing name, and writes text
// to the file the user chose; it returns that file's path, or "" when they
// cancelled. The window's web view does not save a download (a blob: link
// with a download name) the way a browser does, so the desktop saves
// exports through this call instead.
func (a *App) SaveText(name, text string) (string, error) {
	<-a.started
	path, err := a.saveAs(a.ctx, runtime.SaveDialogOptions{Title: "Save " + name, DefaultFilename: name, CanCreateDirectories: true})
	if err != nil {
		return "", &api.Error{Code: kernel.CodeUnavailable,
			Message: fmt.Sprintf("open the save dialog: %v; use foya patch SESSION -o FILE on the command line instead", err)}
	}
	if path == "" {
		return "", nil
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", &api.Error{Code: kernel.CodeUnavailable, Message: fmt.Sprintf("save %s: %v; choose another folder", path, err)}
	}
	return path, nil
}
