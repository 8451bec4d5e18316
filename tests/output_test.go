package tests

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/tools"
)

// dump returns a large output with one needle line in the middle.
type dump struct{}

func (dump) Spec() tools.Spec {
	return tools.Spec{Name: "dump", Description: "Prints a big log.", ReadOnly: true, Schema: json.RawMessage(
		`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}
}
func (dump) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	var a struct{ N int }
	json.Unmarshal(c.Arguments, &a)
	var b strings.Builder
	for i := range 400 {
		if i == 200 {
			fmt.Fprintf(&b, "NEEDLE-%d found in the middle\n", a.N)
			continue
		}
		fmt.Fprintf(&b, "log %d line %d: compiling package number %d of the project\n", a.N, i, i)
	}
	return tools.Text(b.String()), nil
}

func openWith(t *testing.T, opts kernel.Options, turns ...pt.Turn) *harness {
	h := &harness{t: t, dir: t.TempDir(), db: filepath.Join(t.TempDir(), "foya.db")}
	h.srv = pt.New(t, turns...)
	opts.DBPath = h.db
	opts.TextFlush = time.Millisecond
	k, err := kernel.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	h.k = k
	k.Subscribe(func(ev llm.Event) {
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
	})
	return h
}

// spec: O5, O6 — in a session of many large results the projection kicks
// in: older results become summaries with references, the history reader
// enters the tool list, and it finds a line the projection dropped; the
// canonical history keeps everything.
func TestProjectionAndHistoryReader(t *testing.T) {
	var turns []pt.Turn
	for i := range 12 {
		turns = append(turns, pt.Calls(call(fmt.Sprintf("d%d", i), "dump", fmt.Sprintf(`{"n":%d}`, i))))
	}
	turns = append(turns,
		pt.Calls(call("h1", "history_read_tool_result", `{"ref":"r3","mode":"search","pattern":"NEEDLE-0","context":1}`)),
		pt.Calls(call("h2", "history_read_tool_result", `{"ref":"r3","mode":"inspect"}`)),
		pt.Calls(call("h3", "history_read_tool_result", `{"ref":"r3","mode":"read","offset":199,"limit":3}`)),
		pt.Calls(
			call("b1", "history_read_tool_result", `{"ref":"r999","mode":"read"}`),
			call("b2", "history_read_tool_result", `{"ref":"r2","mode":"read"}`),
			call("b3", "history_read_tool_result", `{"ref":"r3","mode":"search","pattern":"("}`),
			call("b4", "history_read_tool_result", `{"ref":"r3","mode":"read","offset":5000}`),
			call("b5", "history_read_tool_result", `{"ref":"x","mode":"read"}`),
		),
		pt.Say("found it"))
	h := openWith(t, kernel.Options{Tools: []tools.Tool{dump{}}, Context: engine.ContextConfig{Budget: 30_000, KeepRecent: 4, Quantum: 4}}, turns...)
	run := h.run("dig")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	reqs := h.srv.Requests()
	if slices.Contains(reqs[0].Tools, "history_read_tool_result") {
		t.Fatal("the history reader is offered before any reference exists")
	}
	at := slices.IndexFunc(reqs, func(r pt.Request) bool { return slices.Contains(r.Tools, "history_read_tool_result") })
	if at < 0 {
		t.Fatal("the projection never kicked in")
	}
	first := toolMessages(reqs[at])[0]
	if strings.Contains(first.Content, "NEEDLE-0") || !strings.Contains(first.Content, `ref "r3"`) {
		t.Fatalf("the first result was not projected: %.300s", first.Content)
	}
	last := toolMessages(reqs[at])
	if !strings.Contains(last[len(last)-1].Content, "NEEDLE") {
		t.Fatal("the newest result was projected")
	}
	read := func(req int, i int) string { return toolMessages(reqs[req])[i].Content }
	n := len(reqs)
	if got := read(n-4, len(toolMessages(reqs[n-4]))-1); !strings.Contains(got, "NEEDLE-0 found in the middle") || !strings.Contains(got, "1 matching lines") {
		t.Fatalf("search = %q", got)
	}
	if got := read(n-3, len(toolMessages(reqs[n-3]))-1); !strings.Contains(got, "result of dump") || !strings.Contains(got, `{"n":0}`) || !strings.Contains(got, "400 lines") {
		t.Fatalf("inspect = %q", got)
	}
	if got := read(n-2, len(toolMessages(reqs[n-2]))-1); !strings.Contains(got, "\n201:NEEDLE-0") || !strings.Contains(got, "offset=202") {
		t.Fatalf("read = %q", got)
	}
	bad := toolMessages(reqs[n-1])
	bad = bad[len(bad)-5:]
	for i, want := range []string{"no tool result r999", "no tool result r2", "does not compile", "past the end", "not a reference"} {
		if !strings.Contains(bad[i].Content, want) {
			t.Errorf("bad input %d = %q; want an error mentioning %q", i+1, bad[i].Content, want)
		}
	}
	msgs, _ := h.k.Messages(context.Background(), run.SessionID)
	if !strings.Contains(msgs[2].Message.Content, "NEEDLE-0") {
		t.Fatal("the canonical history lost the projected text")
	}
}

// pngOf encodes a w×h image.
func pngOf(w, h int) []byte {
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)))
	return buf.Bytes()
}

// pngHeader is a PNG that claims w×h in its header (enough for a decoder to
// read its size, and to refuse it).
func pngHeader(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0
	chunk := append([]byte("IHDR"), ihdr...)
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	binary.Write(&b, binary.BigEndian, uint32(13))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// picture returns the image bytes its arguments choose.
type picture struct{}

func (picture) Spec() tools.Spec {
	return tools.Spec{Name: "picture", Description: "Returns a picture.", ReadOnly: true, Schema: json.RawMessage(
		`{"type":"object","properties":{"kind":{"type":"string"}},"required":["kind"]}`)}
}
func (picture) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	var a struct{ Kind string }
	json.Unmarshal(c.Arguments, &a)
	data := map[string][]byte{
		"small":   pngOf(8, 6),
		"wide":    pngOf(3000, 100),
		"corrupt": []byte("\x89PNG\r\n\x1a\nthis is not really a png"),
		"huge":    pngHeader(10000, 10000),
	}[a.Kind]
	return tools.Result{Text: "here is " + a.Kind, Images: []tools.Image{{MIME: "image/png", Data: data}}}, nil
}

// spec: I1, I2, I3, I4 — images go to the artifact store; a model with
// image input gets them back (oversized ones scaled down); a model without
// it gets an explicit note; corrupt and 100-megapixel images are is_error
// results.
func TestImagesForModelsWithAndWithoutImageInput(t *testing.T) {
	turns := []pt.Turn{
		pt.Calls(call("1", "picture", `{"kind":"small"}`), call("2", "picture", `{"kind":"wide"}`),
			call("3", "picture", `{"kind":"corrupt"}`), call("4", "picture", `{"kind":"huge"}`)),
		pt.Say("seen"),
	}
	for _, model := range []string{"m", "text-only-model"} {
		t.Run(model, func(t *testing.T) {
			h := newHarness(t, []tools.Tool{picture{}}, turns...)
			s, _ := h.k.CreateSession(context.Background(), kernel.NewSession{Workdir: h.dir, ApprovalMode: "auto", Model: model})
			h.runIn(context.Background(), s.ID, "look")
			req := h.srv.Requests()[1]
			tm := toolMessages(req)
			if !strings.Contains(tm[2].Content, "cannot be decoded") || !strings.Contains(tm[3].Content, "100.0 megapixels") {
				t.Fatalf("corrupt/huge: %q / %q", tm[2].Content, tm[3].Content)
			}
			var images []string
			for _, m := range req.Messages {
				images = append(images, m.Images...)
			}
			if model == "m" {
				if len(images) != 2 {
					t.Fatalf("%d images sent; want 2", len(images))
				}
				data, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(images[1], "data:image/png;base64,"))
				cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
				if err != nil || cfg.Width != engine.MaxImageSide || cfg.Height != 68 {
					t.Fatalf("wide image sent as %dx%d (%v); want scaled to %d wide", cfg.Width, cfg.Height, err, engine.MaxImageSide)
				}
			} else {
				if len(images) != 0 {
					t.Fatalf("a text-only model got %d images", len(images))
				}
				if !strings.Contains(tm[0].Content, "left out: this model takes no image input") {
					t.Fatalf("no note for the text-only model: %q", tm[0].Content)
				}
			}
			// The artifacts are kept either way, with their sizes.
			var ids []string
			for _, ev := range h.eventList() {
				if ev.Type == event.TypeToolEnd {
					for _, a := range asStrings(field(ev, "artifacts")) {
						ids = append(ids, a)
					}
				}
			}
			if len(ids) != 2 {
				t.Fatalf("%d artifacts; want 2", len(ids))
			}
			a, err := h.k.Artifact(context.Background(), s.ID, ids[1])
			if err != nil || a.Width != 3000 || a.Height != 100 {
				t.Fatalf("artifact %+v %v", a.Width, err)
			}
		})
	}
}

func asStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
