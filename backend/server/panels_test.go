package server_test

import (
	"strings"
	"testing"

	"foya/backend/server"
)

// TestPanelMethodsOverHTTP: the methods the settings and background panels
// added are served like the others, and their bad input is refused with a
// code and words.
func TestPanelMethodsOverHTTP(t *testing.T) {
	f := start(t, server.Options{})
	sess := f.session("manual")
	f.model.SetModels("m", "b-model", "a-model")
	var models []string
	f.call(&models, "ProviderModels", "scripted")
	if strings.Join(models, " ") != "a-model b-model m" {
		t.Fatalf("ProviderModels = %q; want the server's list, sorted", models)
	}
	var images bool
	f.call(&images, "ImageInput", "gpt-4o")
	if !images {
		t.Fatal("ImageInput(gpt-4o) = false; want the name's guess, true")
	}
	for _, c := range []struct {
		name, method, body string
		status             int
		code, says         string
	}{
		{"unknown profile", "ProviderModels", `["nope"]`, 404, "not_found", "nope"},
		{"no profile", "ProviderModels", `[""]`, 400, "invalid", "name is empty"},
		{"model not a string", "ImageInput", `[4]`, 400, "invalid", "argument 1 of ImageInput must be string"},
		{"no model", "ImageInput", `[" "]`, 400, "invalid", "model is empty"},
		{"lines not a number", "BackgroundOutput", `["` + sess.ID + `", "bg1", "5"]`, 400, "invalid", "argument 3 of BackgroundOutput must be int"},
		{"lines not whole", "BackgroundOutput", `["` + sess.ID + `", "bg1", 2.5]`, 400, "invalid", "argument 3 of BackgroundOutput"},
		{"negative lines", "BackgroundOutput", `["` + sess.ID + `", "bg1", -3]`, 400, "invalid", "lines is -3"},
		{"missing lines", "BackgroundOutput", `["` + sess.ID + `", "bg1"]`, 400, "invalid", "takes 3 argument(s)"},
		{"unknown command", "BackgroundOutput", `["` + sess.ID + `", "bg1", 10]`, 404, "not_found", "no such background command"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := apiError(t, f.request("POST", "/api/call/"+c.method, c.body, nil), c.status, c.code)
			if !strings.Contains(msg, c.says) {
				t.Fatalf("%s %s: message %q; want it to say %q", c.method, c.body, msg, c.says)
			}
		})
	}
}
