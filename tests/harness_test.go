package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/provider"
	"foya/backend/provider/providertest"
	"foya/backend/testwait"
	"foya/backend/tools"
)

// harness is a kernel on a temp database with a scripted model.
type harness struct {
	t   *testing.T
	k   *kernel.Kernel
	srv *providertest.Server
	dir string
	db  string
	// opts are the kernel's options besides the database, tools and text
	// flush (newHarnessWith).
	opts kernel.Options

	mu      sync.Mutex
	events  []llm.Event
	untyped []error // events whose payload is not exactly their typed struct
}

func newHarness(t *testing.T, extra []tools.Tool, turns ...providertest.Turn) *harness {
	t.Helper()
	return newHarnessWith(t, kernel.Options{}, extra, turns...)
}

// newHarnessWith is newHarness with more kernel options (test hooks).
func newHarnessWith(t *testing.T, opts kernel.Options, extra []tools.Tool, turns ...providertest.Turn) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir(), opts: opts}
	h.db = filepath.Join(t.TempDir(), "foya.db")
	h.srv = providertest.New(t, turns...)
	h.open(extra)
	return h
}

// newBenchHarness is newHarness for benchmarks: t only receives failures,
// b owns the temp dirs and the server.
func newBenchHarness(b *testing.B, t *testing.T, extra []tools.Tool, turns ...providertest.Turn) *harness {
	h := &harness{t: t, dir: b.TempDir()}
	h.db = filepath.Join(b.TempDir(), "foya.db")
	h.srv = providertest.New(b, turns...)
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: h.db, Tools: extra, TextFlush: time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	h.k = k
	k.Subscribe(func(ev llm.Event) {
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
	})
	return h
}

func (h *harness) open(extra []tools.Tool) {
	opts := h.opts
	opts.DBPath, opts.Tools, opts.TextFlush = h.db, extra, time.Millisecond
	k, err := kernel.Open(context.Background(), opts)
	if err != nil {
		h.t.Fatal(err)
	}
	h.k = k
	h.t.Cleanup(func() { k.Close() })
	// The scripted model "m" takes images; tests of text-only models use
	// another name.
	if err := k.Profiles().SetImageInput(context.Background(), "m", true); err != nil {
		h.t.Fatal(err)
	}
	k.Subscribe(func(ev llm.Event) {
		err := typedRoundTrip(ev)
		h.mu.Lock()
		h.events = append(h.events, ev)
		if err != nil {
			h.untyped = append(h.untyped, err)
		}
		h.mu.Unlock()
	})
	h.t.Cleanup(func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, err := range h.untyped {
			h.t.Errorf("typed events: %v", err)
		}
		h.untyped = nil
	})
}

func (h *harness) model() *provider.Client {
	c, err := provider.New(provider.Config{BaseURL: h.srv.URL, APIKey: "x", Model: "m", MaxRetries: -1})
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

func (h *harness) session(mode string) kernel.Session {
	s, err := h.k.CreateSession(context.Background(), kernel.NewSession{Workdir: h.dir, ApprovalMode: mode, Model: "m", Title: "test"})
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

// run runs one turn in a new session and returns the run.
func (h *harness) run(prompt string) kernel.Run {
	h.t.Helper()
	return h.runIn(context.Background(), h.session("auto").ID, prompt)
}

func (h *harness) runIn(ctx context.Context, sessionID, prompt string) kernel.Run {
	h.t.Helper()
	r, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sessionID, Prompt: prompt, Model: h.model()})
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func (h *harness) eventList() []llm.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

// toolMessages returns the tool messages of a request, in order.
func toolMessages(req providertest.Request) []providertest.Message {
	var out []providertest.Message
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

func field(ev llm.Event, name string) any {
	var m map[string]any
	json.Unmarshal(ev.Data, &m)
	return m[name]
}

// tracker watches calls of the test tools: how many run at once and in
// what order they started and ended.
type tracker struct {
	running, peak atomic.Int32
	mu            sync.Mutex
	log           []string
}

func (tr *tracker) enter(tag string) {
	n := tr.running.Add(1)
	for {
		p := tr.peak.Load()
		if n <= p || tr.peak.CompareAndSwap(p, n) {
			break
		}
	}
	tr.note("start " + tag)
}

func (tr *tracker) leave(tag string) {
	tr.note("end " + tag)
	tr.running.Add(-1)
}

func (tr *tracker) note(s string) {
	tr.mu.Lock()
	tr.log = append(tr.log, s)
	tr.mu.Unlock()
}

func (tr *tracker) entries() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return slices.Clone(tr.log)
}

// sleeper is parallel-safe: it sleeps for ms milliseconds, or until cancelled.
type sleeper struct{ tr *tracker }

func (s sleeper) Spec() tools.Spec {
	return tools.Spec{Name: "sleep", Description: "Sleeps.", ReadOnly: true, Schema: json.RawMessage(
		`{"type":"object","properties":{"ms":{"type":"integer","minimum":0},"tag":{"type":"string"},"with":{"type":"integer","minimum":0}},"required":["ms"]}`)}
}
func (s sleeper) ParallelSafe(tools.Call) bool { return true }
func (s sleeper) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	var a struct {
		MS   int    `json:"ms"`
		Tag  string `json:"tag"`
		With int32  `json:"with"` // wait until this many calls have run at once
	}
	json.Unmarshal(c.Arguments, &a)
	s.tr.enter(a.Tag)
	defer s.tr.leave(a.Tag)
	// A test of overlap waits for the overlap, not for a sleep to be long
	// enough on a busy machine; a lane that never runs
	// that many calls at once goes on after testwait.Limit, and the test's
	// check of the peak or the order fails.
	for deadline := time.Now().Add(testwait.Limit); s.tr.peak.Load() < a.With && time.Now().Before(deadline) && ctx.Err() == nil; {
		time.Sleep(time.Millisecond)
	}
	select {
	case <-time.After(time.Duration(a.MS) * time.Millisecond):
		return tools.Text("slept " + a.Tag), nil
	case <-ctx.Done():
		return tools.Result{Text: "sleep cancelled", IsError: true}, nil
	}
}

// recorder is serial: it notes its tag.
type recorder struct{ tr *tracker }

func (r recorder) Spec() tools.Spec {
	return tools.Spec{Name: "record", Description: "Records a tag.", Schema: json.RawMessage(
		`{"type":"object","properties":{"tag":{"type":"string"}},"required":["tag"],"additionalProperties":false}`)}
}
func (r recorder) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	var a struct{ Tag string }
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		return tools.Errorf("record: %v", err), nil
	}
	r.tr.enter(a.Tag)
	if n := r.tr.running.Load(); n != 1 {
		r.tr.note(fmt.Sprintf("overlap %s with %d others", a.Tag, n-1))
	}
	time.Sleep(2 * time.Millisecond)
	r.tr.leave(a.Tag)
	return tools.Text("recorded " + a.Tag), nil
}

// imager returns a small PNG.
type imager struct{}

func (imager) Spec() tools.Spec {
	return tools.Spec{Name: "screenshot", Description: "Returns an image.", ReadOnly: true}
}
func (imager) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return tools.Result{Text: "a 4x3 image", Images: []tools.Image{{MIME: "image/png", Data: buf.Bytes()}}}, nil
}

// broken fails as a program would: a Go error.
type broken struct{}

func (broken) Spec() tools.Spec { return tools.Spec{Name: "broken", Description: "Always breaks."} }
func (broken) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	return tools.Result{}, errors.New("disk on fire")
}

// named is a no-op tool with a given name and exposure.
type named struct {
	name, desc string
	exp        tools.Exposure
	calls      *atomic.Int32
}

func (n named) Spec() tools.Spec {
	return tools.Spec{Name: n.name, Description: n.desc, Exposure: n.exp, ReadOnly: true}
}
func (n named) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	if n.calls != nil {
		n.calls.Add(1)
	}
	return tools.Text(n.name + " ran"), nil
}
